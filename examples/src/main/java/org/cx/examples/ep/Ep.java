package org.cx.examples.ep;

import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;

/**
 * The NAS Parallel Benchmarks' EP kernel ("embarrassingly parallel", as Ninf measured it) as a CX computation:
 * 2^(M+1) uniform pseudo-random numbers from the NPB linear congruential generator, taken in pairs, give Gaussian
 * deviates by the polar (Marsaglia) method; the answer is their sums and a count per annulus. The 2^(M−16) batches
 * of 2^16 pairs are split in halves down to {@code batchesPerLeaf}; each leaf computes its batches, and
 * {@link Merge} tasks add the halves up. The answer is checked against the NPB reference sums ({@link #verify}).
 */
public final class Ep extends Task {
    /** log2 of the pairs per batch (NPB's MK). */
    static final int MK = 16;
    private static final long MASK46 = (1L << 46) - 1;
    private static final long MULTIPLIER = 1220703125L; // 5^13
    private static final long SEED = 271828183L;
    private static final double TWO_TO_MINUS_46 = 1.0 / (1L << 46);

    private final int m;
    private final long firstBatch;
    private final long batches;
    private final long batchesPerLeaf;

    /** The whole problem of size {@code m} (NPB class S: 24, W: 25, A: 28, B: 30). */
    public Ep(int m, long batchesPerLeaf) {
        this(m, 0, 1L << (checkSize(m) - MK), batchesPerLeaf);
    }

    private Ep(int m, long firstBatch, long batches, long batchesPerLeaf) {
        if (batchesPerLeaf < 1) {
            throw new IllegalArgumentException("batchesPerLeaf must be >= 1");
        }
        this.m = m;
        this.firstBatch = firstBatch;
        this.batches = batches;
        this.batchesPerLeaf = batchesPerLeaf;
    }

    /**
     * EP of 2^m pairs in one call, where it runs: how Ninf calls it ({@code cx call app.jar
     * org.cx.examples.ep.Ep.call 24}); {@link #verify} checks the result.
     */
    public static Result call(int m) {
        return compute(0, 1L << (checkSize(m) - MK));
    }

    private static int checkSize(int m) {
        if (m < MK || m > 40) {
            throw new IllegalArgumentException("EP size M must be in " + MK + "..40, got " + m);
        }
        return m;
    }

    @Override
    public void execute(TaskContext context) {
        if (batches <= batchesPerLeaf) {
            context.sendResult(compute(firstBatch, batches));
            return;
        }
        long half = batches / 2;
        TaskId merge = context.storeTask(new Merge(), context.continuation());
        context.storeTask(new Ep(m, firstBatch, half, batchesPerLeaf), Continuation.to(merge, 0));
        context.storeTask(new Ep(m, firstBatch + half, batches - half, batchesPerLeaf), Continuation.to(merge, 1));
    }

    /**
     * The same computation with the same tasks (the same halving down to {@code batchesPerLeaf}, the same leaves and
     * merges) on {@code pool} instead of a CX network: the yardstick a CX run is measured against.
     */
    public static Result forkJoin(int m, long batchesPerLeaf, java.util.concurrent.ForkJoinPool pool) {
        return pool.invoke(new Local(0, 1L << (checkSize(m) - MK), batchesPerLeaf));
    }

    /** One task of {@link #forkJoin}: a leaf computes its batches, a range forks its halves and adds them. */
    private static final class Local extends java.util.concurrent.RecursiveTask<Result> {
        private static final long serialVersionUID = 1L;
        private final long first;
        private final long count;
        private final long perLeaf;

        Local(long first, long count, long perLeaf) {
            this.first = first;
            this.count = count;
            this.perLeaf = perLeaf;
        }

        @Override
        protected Result compute() {
            if (count <= perLeaf) {
                return Ep.compute(first, count);
            }
            long half = count / 2;
            Local right = new Local(first + half, count - half, perLeaf);
            right.fork();
            Result left = new Local(first, half, perLeaf).compute();
            return left.plus(right.join());
        }
    }

    /** Bigger ranges first: they spread the work. */
    @Override
    public long priority() {
        return batches;
    }

    /** Batches {@code first} … {@code first + count − 1}, computed here. */
    static Result compute(long first, long count) {
        int pairs = 1 << MK;
        long an = MULTIPLIER;
        for (int i = 0; i < MK + 1; i++) {
            an = an * an & MASK46; // a^(2·pairs): the jump from one batch's seed to the next
        }
        double[] uniforms = new double[2 * pairs];
        double sx = 0;
        double sy = 0;
        long[] counts = new long[Result.ANNULI];
        for (long k = first; k < first + count; k++) {
            long x = SEED;
            long jump = an;
            for (long kk = k; kk > 0; kk >>= 1) { // x = seed · an^k, by repeated squaring
                if ((kk & 1) != 0) {
                    x = x * jump & MASK46;
                }
                jump = jump * jump & MASK46;
            }
            for (int i = 0; i < uniforms.length; i++) {
                x = x * MULTIPLIER & MASK46; // the low 46 bits of the 64-bit product are exact
                uniforms[i] = x * TWO_TO_MINUS_46;
            }
            for (int i = 0; i < pairs; i++) {
                double x1 = 2 * uniforms[2 * i] - 1;
                double x2 = 2 * uniforms[2 * i + 1] - 1;
                double t = x1 * x1 + x2 * x2;
                if (t <= 1) {
                    double f = Math.sqrt(-2 * Math.log(t) / t);
                    double g1 = x1 * f;
                    double g2 = x2 * f;
                    counts[(int) Math.max(Math.abs(g1), Math.abs(g2))]++;
                    sx += g1;
                    sy += g2;
                }
            }
        }
        return new Result(sx, sy, counts);
    }

    /** The answer: sums of the deviates, and how many pairs fell in each square annulus l ≤ max(|X|,|Y|) < l+1. */
    public record Result(double sx, double sy, long[] counts) {
        static final int ANNULI = 10;

        Result plus(Result o) {
            long[] c = new long[ANNULI];
            for (int i = 0; i < ANNULI; i++) {
                c[i] = counts[i] + o.counts[i];
            }
            return new Result(sx + o.sx, sy + o.sy, c);
        }

        public long gaussianPairs() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }
    }

    /** Adds two halves. */
    public static final class Merge extends Task {
        public Merge() {
            super(2);
        }

        @Override
        public void execute(TaskContext context) {
            Result a = input(0);
            Result b = input(1);
            context.sendResult(a.plus(b));
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }

    /**
     * NPB's verification: the sums within a relative 10⁻⁸ of the reference for sizes with one (S = 24, W = 25,
     * A = 28, B = 30).
     *
     * @throws IllegalArgumentException if there is no reference for {@code m}
     */
    public static boolean verify(int m, Result r) {
        double[] ref = reference(m);
        return Math.abs((r.sx() - ref[0]) / ref[0]) <= 1e-8 && Math.abs((r.sy() - ref[1]) / ref[1]) <= 1e-8;
    }

    /** The NPB reference sums {sx, sy} for size {@code m}. */
    public static double[] reference(int m) {
        return switch (m) {
            case 24 -> new double[] {-3.247834652034740e3, -6.958407078382297e3};
            case 25 -> new double[] {-2.863319731645753e3, -6.320053679109499e3};
            case 28 -> new double[] {-4.295875165629892e3, -1.580732573678431e4};
            case 30 -> new double[] {4.033815542441498e4, -2.660669192809235e4};
            default -> throw new IllegalArgumentException("no NPB reference for EP size M = " + m
                    + " (there are for 24 (S), 25 (W), 28 (A), 30 (B))");
        };
    }
}
