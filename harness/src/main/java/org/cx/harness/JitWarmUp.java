package org.cx.harness;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Warm-up that lasts until the JIT is quiet: a benchmark should measure the compiled code, not the compiler. It
 * runs a warm-up computation at least a given number of times, then again while the JIT compiled for more than
 * {@link #QUIET_SHARE} of the wall time of any of the last {@link #QUIET_RUNS} runs, within a time budget.
 *
 * <p>Why: seven task servers in one JVM on two cores went on compiling their network paths for about 30 loaded runs
 * of F(13) (100–600 ms of compilation in each of the first ten runs of 0.33 s, under 20 ms after about 30), and their
 * efficiency rose from 0.88 to 0.96 of the ceiling meanwhile; one server was quiet after about ten.
 */
final class JitWarmUp {
    /** The JIT counts as quiet in a run that it spent under this share of the run's wall time compiling. */
    static final double QUIET_SHARE = 0.05;
    /** ... in this many runs in a row. */
    static final int QUIET_RUNS = 3;

    /** One warm-up computation. */
    interface Run {
        void run() throws InterruptedException;
    }

    private JitWarmUp() {
    }

    /**
     * Runs {@code run} {@code min} times, then until the JIT is quiet or {@code budget} has passed since the first
     * of those extra runs (never, if the budget is zero or the JVM does not report compilation time). Reports each
     * extra run to {@code progress}. Returns how many runs it made.
     */
    static int untilQuiet(Run run, int min, Duration budget, Consumer<String> progress) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean reported = jit != null && jit.isCompilationTimeMonitoringSupported();
        return untilQuiet(run, min, reported ? budget : Duration.ZERO,
                reported ? jit::getTotalCompilationTime : () -> 0, System::nanoTime, progress);
    }

    /**
     * As {@link #untilQuiet(Run, int, Duration, Consumer)}, with the JIT's total compilation time (ms) and the clock
     * ({@code System.nanoTime}) given.
     */
    static int untilQuiet(Run run, int min, Duration budget, LongSupplier compiledMs, LongSupplier nanoTime,
                          Consumer<String> progress) throws InterruptedException {
        int runs = 0;
        for (; runs < min; runs++) {
            run.run();
        }
        if (budget.isZero()) {
            return runs;
        }
        long deadline = nanoTime.getAsLong() + budget.toNanos();
        int quietInARow = 0;
        while (quietInARow < QUIET_RUNS && nanoTime.getAsLong() < deadline) {
            long compiledBefore = compiledMs.getAsLong();
            long start = nanoTime.getAsLong();
            run.run();
            runs++;
            double wallMs = (nanoTime.getAsLong() - start) / 1e6;
            long compiled = compiledMs.getAsLong() - compiledBefore;
            quietInARow = compiled < QUIET_SHARE * wallMs ? quietInARow + 1 : 0;
            progress.accept(String.format("warm-up until the JIT is quiet, run %d: it compiled for %d ms of %.0f ms%s", runs - min, compiled,
                    wallMs, quietInARow == QUIET_RUNS ? ": quiet" : ""));
        }
        if (quietInARow < QUIET_RUNS) {
            progress.accept("warm-up: the JIT is still compiling after " + budget.toSeconds()
                    + " s; measuring anyway");
        }
        return runs;
    }
}
