package org.cx.examples.dc;

import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.List;
import org.cx.api.DivideAndConquer;
import org.cx.api.TaskContext;
import org.cx.examples.sort.MergeSort;

/**
 * {@link MergeSort} in four methods: a problem is a range {@code [from, to)} of the shared input; a range of at most
 * {@code leafSize} longs is sorted directly, a larger one split in halves, and two sorted halves merged.
 */
public record MergeSortDc(int leafSize) implements DivideAndConquer<int[], long[]> {
    /** The whole input of {@code n} longs, as a problem. */
    public static int[] all(int n) {
        return new int[] {0, n};
    }

    @Override
    public boolean isSmall(int[] range) {
        return range[1] - range[0] <= leafSize;
    }

    @Override
    public long[] solve(int[] range, TaskContext context) {
        LongBuffer input = context.sharedData(MergeSort.INPUT).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
        long[] part = new long[range[1] - range[0]];
        input.get(range[0], part);
        Arrays.sort(part);
        return part;
    }

    @Override
    public List<int[]> split(int[] range, TaskContext context) {
        int mid = range[0] + (range[1] - range[0]) / 2;
        return List.of(new int[] {range[0], mid}, new int[] {mid, range[1]});
    }

    @Override
    public long[] combine(List<long[]> parts, TaskContext context) {
        return MergeSort.Merge.merge(parts.get(0), parts.get(1));
    }
}
