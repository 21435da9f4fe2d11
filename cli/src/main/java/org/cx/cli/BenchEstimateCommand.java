package org.cx.cli;

import java.util.concurrent.Callable;
import org.cx.examples.fib.Fib;
import org.cx.harness.FibBench;
import org.cx.harness.SequentialEstimate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx bench estimate}: a long sequential time estimated from two short runs. */
@Command(name = "estimate", mixinStandardHelpOptions = true,
        description = {"Estimates a long sequential time from two short runs (the paper's technique).",
            "Runs F(n1) and F(n2) on one producer with one worker, fits T1(n) = alpha + beta * T(n)",
            "(T(n) = 3F(n+1)-2 tasks), estimates T1 for F(n), and measures F(n) too to show the error (skip",
            "that with --no-check)."})
final class BenchEstimateCommand extends Printing implements Callable<Integer> {
    @Option(names = "--n1", required = true, description = "The first short run.")
    int n1;

    @Option(names = "--n2", required = true, description = "The second short run.")
    int n2;

    @Option(names = "--n", required = true, description = "The run to estimate.")
    int n;

    @Mixin
    LoadOptions load;

    @Option(names = "--no-check", description = "Only estimate; do not measure F(n).")
    boolean noCheck;

    @Override
    public Integer call() throws Exception {
        double t1 = sequential(n1);
        double t2 = sequential(n2);
        SequentialEstimate e = SequentialEstimate.fit(n1, t1, n2, t2);
        out().printf("F(%d): %.3f s and F(%d): %.3f s on one worker -> alpha %.4f s, beta %.6f s per task%n",
                n1, t1, n2, t2, e.alphaS(), e.betaS());
        out().printf("estimated T1 for F(%d) (%d tasks): %.3f s%n", n, Fib.taskCount(n), e.seconds(n));
        if (!noCheck) {
            double measured = sequential(n);
            out().printf("measured: %.3f s; estimate error %+.1f%%%n", measured,
                    100 * (e.seconds(n) - measured) / measured);
        }
        out().flush();
        return 0;
    }

    /** Median wall time of three runs of F(k) on one server, one producer, one worker, after one warm-up. */
    private double sequential(int k) throws Exception {
        FibBench.Settings s = new FibBench.Settings(k, 1, 1, 1, load.toLoad(), true, false, 1, 3);
        return FibBench.median(FibBench.run(s, new java.io.PrintStream(java.io.OutputStream.nullOutputStream())))
                .wallS();
    }
}
