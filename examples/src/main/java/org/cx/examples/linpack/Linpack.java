package org.cx.examples.linpack;

import java.util.SplittableRandom;

/**
 * The Linpack kernel as Ninf calls it: LU factorisation with partial pivoting of a dense n × n system ({@code dgefa})
 * and the solve that follows ({@code dgesl}), in double precision, on a row-major matrix. Called on a producer by
 * name ({@code cx call}, {@link org.cx.api.spi.Calls.StaticCall}): the caller ships the matrix and the right-hand
 * side, and gets the solution back.
 */
public final class Linpack {
    private Linpack() {
    }

    /** Floating-point operations of one factorisation and solve, as Linpack counts them: 2n³/3 + 2n². */
    public static double flops(int n) {
        return 2.0 * n * n * n / 3.0 + 2.0 * n * n;
    }

    /** A random n × n matrix, row-major, entries in [-0.5, 0.5). */
    public static double[] matrix(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] a = new double[n * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = random.nextDouble() - 0.5;
        }
        return a;
    }

    /** The right-hand side whose solution is all ones: the row sums of {@code a}. */
    public static double[] onesRhs(double[] a, int n) {
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) {
                s += a[i * n + j];
            }
            b[i] = s;
        }
        return b;
    }

    /**
     * Solves {@code a x = b} for x; {@code a} (row-major, n × n) and {@code b} are overwritten.
     *
     * @throws ArithmeticException if the matrix is singular
     */
    public static double[] solve(int n, double[] a, double[] b) {
        if (a.length != n * n || b.length != n) {
            throw new IllegalArgumentException("a must hold n × n = " + n * n + " entries and b n = " + n
                    + "; they hold " + a.length + " and " + b.length);
        }
        int[] pivot = new int[n];
        for (int k = 0; k < n; k++) {
            int p = k;
            for (int i = k + 1; i < n; i++) {
                if (Math.abs(a[i * n + k]) > Math.abs(a[p * n + k])) {
                    p = i;
                }
            }
            pivot[k] = p;
            if (a[p * n + k] == 0) {
                throw new ArithmeticException("the matrix is singular (column " + k + ")");
            }
            if (p != k) {
                for (int j = 0; j < n; j++) {
                    double t = a[k * n + j];
                    a[k * n + j] = a[p * n + j];
                    a[p * n + j] = t;
                }
            }
            double inverse = 1.0 / a[k * n + k];
            for (int i = k + 1; i < n; i++) {
                double l = a[i * n + k] * inverse;
                a[i * n + k] = l;
                if (l != 0) {
                    int row = i * n;
                    int top = k * n;
                    for (int j = k + 1; j < n; j++) {
                        a[row + j] -= l * a[top + j];
                    }
                }
            }
        }
        for (int k = 0; k < n; k++) { // P b: whole rows were swapped, multipliers with them
            double t = b[pivot[k]];
            b[pivot[k]] = b[k];
            b[k] = t;
        }
        for (int i = 1; i < n; i++) { // L y = P b
            double s = b[i];
            int row = i * n;
            for (int j = 0; j < i; j++) {
                s -= a[row + j] * b[j];
            }
            b[i] = s;
        }
        for (int k = n - 1; k >= 0; k--) { // U x = y
            double s = b[k];
            for (int j = k + 1; j < n; j++) {
                s -= a[k * n + j] * b[j];
            }
            b[k] = s / a[k * n + k];
        }
        return b;
    }

    /** The largest distance of {@code x} from all ones: the error of a solve of {@link #onesRhs}. */
    public static double errorFromOnes(double[] x) {
        double worst = 0;
        for (double v : x) {
            worst = Math.max(worst, Math.abs(v - 1));
        }
        return worst;
    }

    /**
     * Solves a random system of size {@code n} made from {@code seed} where it runs, and returns its error (for
     * {@code cx call}: {@code cx call app.jar org.cx.examples.linpack.Linpack.random 1000 42}).
     */
    public static double random(int n, long seed) {
        double[] a = matrix(n, seed);
        return errorFromOnes(solve(n, a, onesRhs(a, n)));
    }
}
