package org.cx.harness;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Warm-up that lasts until the JIT is quiet: a benchmark should measure the compiled code, not the compiler. It
 * runs a warm-up computation at least a given number of times, then again, within a time budget, until the JIT
 * compiled for under {@link #QUIET_SHARE} of the wall time of each of the last {@link #QUIET_RUNS} runs and of the
 * last {@link #QUIET_WINDOW} of runs together.
 *
 * <p>Why: seven task servers in one JVM on two cores went on compiling their network paths for about 30 loaded runs
 * of F(13) (100–600 ms of compilation in each of the first ten runs of 0.33 s, under 20 ms after about 30), and their
 * efficiency rose from 0.88 to 0.96 of the ceiling meanwhile; one server was quiet after about ten. The window is for
 * computations of a millisecond: three of them in a row seldom see a compilation end, though the code that runs once
 * per computation is still interpreted. F(5)'s round trip (22 tasks) halved between 20 and 1,000 warm-up runs.
 */
final class JitWarmUp {
    /** The JIT counts as quiet in a run that it spent under this share of the run's wall time compiling. */
    static final double QUIET_SHARE = 0.05;
    /** ... in this many runs in a row. */
    static final int QUIET_RUNS = 3;
    /** ... and over the runs of at least this much wall time before now, together. */
    static final Duration QUIET_WINDOW = Duration.ofSeconds(2);
    /** Runs shorter than this are reported together, at most once in this time. */
    private static final Duration REPORT_EVERY = Duration.ofSeconds(1);

    /** One warm-up computation. */
    interface Run {
        void run() throws InterruptedException;
    }

    /** A warm-up run's wall time and the JIT's compilation time during it. */
    private record Sample(long wallNanos, long compiledMs) {
        boolean quiet() {
            return compiledMs < QUIET_SHARE * wallNanos / 1e6;
        }
    }

    private JitWarmUp() {
    }

    /**
     * Runs {@code run} {@code min} times, then until the JIT is quiet or {@code budget} has passed since the first
     * of those extra runs (never, if the budget is zero or the JVM does not report compilation time). Reports the
     * extra runs to {@code progress}. Returns how many runs it made.
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
        Deque<Sample> recent = new ArrayDeque<>();
        long recentNanos = 0;
        long recentCompiledMs = 0;
        long lastReport = nanoTime.getAsLong();
        boolean quiet = false;
        while (!quiet && nanoTime.getAsLong() < deadline) {
            long compiledBefore = compiledMs.getAsLong();
            long start = nanoTime.getAsLong();
            run.run();
            runs++;
            long end = nanoTime.getAsLong();
            Sample sample = new Sample(end - start, compiledMs.getAsLong() - compiledBefore);
            recent.addLast(sample);
            recentNanos += sample.wallNanos();
            recentCompiledMs += sample.compiledMs();
            while (recent.size() > QUIET_RUNS
                    && recentNanos - recent.getFirst().wallNanos() >= QUIET_WINDOW.toNanos()) {
                Sample old = recent.removeFirst();
                recentNanos -= old.wallNanos();
                recentCompiledMs -= old.compiledMs();
            }
            quiet = recentNanos >= QUIET_WINDOW.toNanos()
                    && recent.reversed().stream().limit(QUIET_RUNS).allMatch(Sample::quiet)
                    && new Sample(recentNanos, recentCompiledMs).quiet();
            if (quiet || sample.wallNanos() >= REPORT_EVERY.toNanos() || end - lastReport >= REPORT_EVERY.toNanos()) {
                lastReport = end;
                progress.accept(String.format(Locale.ROOT, "warm-up until the JIT is quiet, run %d: it compiled for "
                        + "%d ms in the last %d runs (%.0f ms)%s", runs - min,
                        recentCompiledMs, recent.size(), recentNanos / 1e6,
                        quiet ? ": quiet" : ""));
            }
        }
        if (!quiet) {
            progress.accept("warm-up: the JIT is still compiling after " + budget.toSeconds()
                    + " s; measuring anyway");
        }
        return runs;
    }
}
