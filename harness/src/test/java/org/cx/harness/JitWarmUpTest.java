package org.cx.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {

    /**
     * A warm-up run that takes 10 ms on a fake clock, after which the fake JIT has compiled {@code perRun[i]} more
     * milliseconds.
     */
    private static final class FakeJit {
        private final long[] perRun;
        private final AtomicInteger runs = new AtomicInteger();
        private long total;
        private long nanos;

        FakeJit(long... perRun) {
            this.perRun = perRun;
        }

        void run() {
            nanos += 10_000_000;
            int i = runs.getAndIncrement();
            total += perRun[Math.min(i, perRun.length - 1)];
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
        FakeJit jit = new FakeJit(500);
        List<String> lines = new ArrayList<>();
        assertEquals(4, JitWarmUp.untilQuiet(jit::run, 4, Duration.ZERO, jit::compiledMs, jit::nanoTime, lines::add));
        assertEquals(4, jit.runs.get());
        assertTrue(lines.isEmpty(), lines.toString());
    }

    @Test
    void itGoesOnUntilThreeRunsInARowCompiledLittle() throws InterruptedException {
        // Two busy runs, one quiet, one busy again, then quiet: the count of quiet runs starts over after the busy one.
        FakeJit jit = new FakeJit(0, 0, 100, 100, 0, 100, 0, 0, 0, 100);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 2, Duration.ofMinutes(1), jit::compiledMs, jit::nanoTime, lines::add);
        assertEquals(9, runs, lines.toString());
        assertEquals(7, lines.size(), "a line per run beyond the minimum: " + lines);
        assertTrue(lines.get(6).endsWith(": quiet"), lines.toString());
    }

    @Test
    void aJitThatNeverQuietsDownIsMeasuredAnywayWhenTheBudgetIsSpent() throws InterruptedException {
        FakeJit jit = new FakeJit(100);
        List<String> lines = new ArrayList<>();
        int runs = JitWarmUp.untilQuiet(jit::run, 1, Duration.ofMillis(200), jit::compiledMs, jit::nanoTime,
                lines::add);
        assertTrue(runs > 1 && runs < 40, "runs: " + runs);
        assertTrue(lines.getLast().contains("still compiling"), lines.toString());
    }
}
