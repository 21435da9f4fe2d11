package org.cx.examples.sort;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;
import org.cx.api.Continuation;
import org.cx.api.SharedData;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;

/**
 * Merge sort as a CX computation. The unsorted longs are the computation's shared data ({@link #input}), so they
 * travel to each producer once instead of down the tree of tasks; a task for the range {@code [from, to)} splits
 * it in halves down to {@code leafSize} elements; a leaf sorts its range, read from the shared data, and sends the
 * sorted array; a {@link Merge} merges its two sorted inputs and sends the result up, so values move only upward,
 * each level once.
 */
public final class MergeSort extends Task {
    /** The shared data entry holding the longs to sort, little-endian. */
    public static final String INPUT = "longs";

    private final int from;
    private final int to;
    private final int leafSize;

    /** Sorts the first {@code n} longs of the input, {@code leafSize} at most per leaf. */
    public MergeSort(int n, int leafSize) {
        this(0, n, leafSize);
    }

    private MergeSort(int from, int to, int leafSize) {
        if (leafSize < 1 || from > to) {
            throw new IllegalArgumentException("leafSize must be >= 1 and the range not reversed");
        }
        this.from = from;
        this.to = to;
        this.leafSize = leafSize;
    }

    /** The shared data a {@link MergeSort} of {@code values} reads. */
    public static SharedData input(long[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asLongBuffer().put(values);
        return SharedData.of(INPUT, bytes.array());
    }

    @Override
    public void execute(TaskContext context) {
        if (to - from <= leafSize) {
            LongBuffer input = context.sharedData(INPUT).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
            long[] part = new long[to - from];
            input.get(from, part);
            Arrays.sort(part);
            context.sendResult(part);
            return;
        }
        int mid = from + (to - from) / 2;
        TaskId merge = context.storeTask(new Merge(), context.continuation());
        context.storeTask(new MergeSort(from, mid, leafSize), Continuation.to(merge, 0));
        context.storeTask(new MergeSort(mid, to, leafSize), Continuation.to(merge, 1));
    }

    /**
     * The same computation with the same tasks (the same halving down to {@code leafSize}, the same leaves and merges)
     * on {@code pool} instead of a CX network: the yardstick that separates the algorithm's cost from the network's.
     */
    public static long[] forkJoin(long[] values, int leafSize, java.util.concurrent.ForkJoinPool pool) {
        return pool.invoke(new Local(values, 0, values.length, leafSize));
    }

    /** One task of {@link #forkJoin}: a leaf sorts a copy of its range, a range forks its halves and merges them. */
    private static final class Local extends java.util.concurrent.RecursiveTask<long[]> {
        private static final long serialVersionUID = 1L;
        private final transient long[] values;
        private final int from;
        private final int to;
        private final int leafSize;

        Local(long[] values, int from, int to, int leafSize) {
            this.values = values;
            this.from = from;
            this.to = to;
            this.leafSize = leafSize;
        }

        @Override
        protected long[] compute() {
            if (to - from <= leafSize) {
                long[] part = Arrays.copyOfRange(values, from, to);
                Arrays.sort(part);
                return part;
            }
            int mid = from + (to - from) / 2;
            Local right = new Local(values, mid, to, leafSize);
            right.fork();
            long[] left = new Local(values, from, mid, leafSize).compute();
            return Merge.merge(left, right.join());
        }
    }

    /** Merges two sorted arrays. */
    public static final class Merge extends Task {
        public Merge() {
            super(2);
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(merge(input(0), input(1)));
        }

        /**
         * The sorted union of two sorted arrays. The loop has no branch on the comparison, whose outcome is a coin
         * toss on random keys: the JIT turns the selects into conditional moves, a quarter faster than a branch
         * mispredicted half of the time.
         */
        public static long[] merge(long[] a, long[] b) {
            long[] out = new long[a.length + b.length];
            int i = 0;
            int j = 0;
            int k = 0;
            while (i < a.length && j < b.length) {
                long x = a[i];
                long y = b[j];
                int fromA = x <= y ? 1 : 0;
                out[k++] = fromA == 1 ? x : y;
                i += fromA;
                j += 1 - fromA;
            }
            System.arraycopy(a, i, out, k, a.length - i);
            System.arraycopy(b, j, out, k + a.length - i, b.length - j);
            return out;
        }
    }
}
