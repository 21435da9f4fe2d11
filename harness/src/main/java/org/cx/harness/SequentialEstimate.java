package org.cx.harness;

import org.cx.examples.fib.Fib;

/**
 * The CX paper's technique for long sequential times (§5): model one processor's time for F(n) as
 * {@code T1(n) = α + β·T(n)}, with T(n) = 3F(n+1) − 2 the number of tasks and α the start and stop cost; two short
 * measured runs give α and β, and so T1 for any n.
 */
public record SequentialEstimate(double alphaS, double betaS) {

    /** α and β from the times of two runs, {@code t1} for F({@code n1}) and {@code t2} for F({@code n2}). */
    public static SequentialEstimate fit(int n1, double t1, int n2, double t2) {
        long tasks1 = Fib.taskCount(n1);
        long tasks2 = Fib.taskCount(n2);
        if (tasks1 == tasks2) {
            throw new IllegalArgumentException("the two runs must differ in task count (n1 and n2 must differ and "
                    + "not both be 0 or 1)");
        }
        double beta = (t2 - t1) / (tasks2 - tasks1);
        return new SequentialEstimate(t1 - beta * tasks1, beta);
    }

    /** The estimated one-processor time of F(n), in seconds. */
    public double seconds(int n) {
        return alphaS + betaS * Fib.taskCount(n);
    }
}
