package org.cx.examples.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MergeSortTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 1_000, 100_000})
    void theForkJoinYardstickSortsAsArraysSortDoes(int leafSize) {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        Random random = new Random(seed);
        long[] values = random.longs(10_000 + random.nextInt(1_000), -50, 50).toArray();
        long[] expected = values.clone();
        Arrays.sort(expected);
        try (ForkJoinPool pool = new ForkJoinPool(2)) {
            assertArrayEquals(expected, MergeSort.forkJoin(values, leafSize, pool), "seed " + seed);
        }
    }
}
