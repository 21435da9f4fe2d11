package org.cx.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {

    /**
     * A warm-up run that takes {@code runMs} on a fake clock, after which the fake JIT has compiled
     * {@code compiled.applyAsLong(i)} more milliseconds in the {@code i}-th run.
     */
    private static final class FakeJit {
        private final long runMs;
        private final IntToLongFunction compiled;
        private final AtomicInteger runs = new AtomicInteger();
        private long total;
        private long nanos;

        FakeJit(long runMs, IntToLongFunction compiled) {
            this.runMs = runMs;
            this.compiled = compiled;
        }

        FakeJit(long runMs, long... perRun) {
            this(runMs, i -> perRun[Math.min(i, perRun.length - 1)]);
        }

        void run() {
            nanos += runMs * 1_000_000;
            total += compiled.applyAsLong(runs.getAndIncrement());
        }

        long compiledMs() {
            return total;
        }

        long nanoTime() {
            return nanos;
        }
    }

    @Test
    void withoutABudgetItRunsTheMinimumOnly() throws InterruptedException {
        FakeJit jit = new FakeJit(10, 500);
        List<String> lines = new ArrayList<>();
        assertEquals(4, JitWarmUp.untilQuiet(jit::run, 4, Duration.ZERO, jit::compiledMs, jit::nanoTime, lines::add));
        assertEquals(4, jit.runs.get());
        assertTrue(lines.isEmpty(), lines.toString());
    }

    @Test
    void itGoesOnUntilThreeRunsInARowCompiledLittle() throws InterruptedException {
        // Runs of a second: two busy, one quiet, one busy again, then quiet: the count of quiet runs starts over.
        FakeJit jit = new FakeJit(1000, 0, 0, 100, 100, 0, 100, 0, 0, 0, 100);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 2, Duration.ofMinutes(1), jit::compiledMs, jit::nanoTime, lines::add);
        assertEquals(9, runs, lines.toString());
        assertEquals(7, lines.size(), "a line per run of a second beyond the minimum: " + lines);
        assertTrue(lines.get(6).endsWith(": quiet"), lines.toString());
    }

    @Test
    void runsOfAMillisecondGoOnForTheWholeWindow() throws InterruptedException {
        FakeJit jit = new FakeJit(1, 0);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 20, Duration.ofMinutes(1), jit::compiledMs, jit::nanoTime,
                lines::add);
        assertEquals(20 + JitWarmUp.QUIET_WINDOW.toMillis(), runs, "three quiet runs of a millisecond are not enough");
        assertTrue(lines.size() <= 3, "short runs are reported about once a second: " + lines);
        assertTrue(lines.getLast().endsWith(": quiet"), lines.toString());
    }

    @Test
    void runsOfAMillisecondWaitForCompilationsSpreadOverManyRuns() throws InterruptedException {
        // A millisecond of compilation in every tenth run (10 % of the time, though most triples of runs see none)
        // for 3,000 runs: quiet once the last two seconds hold under 100 ms of it, after about 4,000 runs.
        FakeJit jit = new FakeJit(1, i -> i < 3000 && i % 10 == 0 ? 1 : 0);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 0, Duration.ofMinutes(1), jit::compiledMs, jit::nanoTime,
                lines::add);
        assertTrue(runs > 3950 && runs < 4050, "runs: " + runs + " " + lines);
    }

    @Test
    void aJitThatNeverQuietsDownIsMeasuredAnywayWhenTheBudgetIsSpent() throws InterruptedException {
        FakeJit jit = new FakeJit(10, 100);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 1, Duration.ofMillis(200), jit::compiledMs, jit::nanoTime,
                lines::add);
        assertTrue(runs > 1 && runs < 40, "runs: " + runs);
        assertTrue(lines.getLast().contains("still compiling"), lines.toString());
    }
}
