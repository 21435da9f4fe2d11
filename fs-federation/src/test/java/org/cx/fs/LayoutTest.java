package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the blocks of striped files are, as a table of cases. */
class LayoutTest {
    private static final int B = Blocks.SIZE;

    @Test
    void blocksGoRoundRobinByStripeUnit() {
        Layout l = new Layout(10L * B + 5, 2L * B, 3); // 11 blocks, units of 2 blocks, 3 columns
        int[] column = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2};
        long[] index = {0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2};
        for (int i = 0; i < 11; i++) {
            assertEquals(column[i], l.column(i), "column of block " + i);
            assertEquals(index[i], l.indexInColumn(i), "index of block " + i);
        }
        assertEquals(List.of(0, 1, 6, 7), l.blocksOf(0));
        assertEquals(List.of(4, 5, 10), l.blocksOf(2));
        assertEquals(5, l.blockLength(10));
        assertEquals(B, l.blockLength(9));
    }

    @Test
    void oneColumnHoldsEveryBlockInOrder() {
        Layout l = new Layout(3L * B, 0, 1);
        List<Long> index = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertEquals(0, l.column(i));
            index.add(l.indexInColumn(i));
        }
        assertEquals(List.of(0L, 1L, 2L), index);
        assertEquals(List.of(), new Layout(0, 0, 1).blocksOf(0));
    }

    @Test
    void aStripeUnitIsWholeBlocks() {
        assertThrows(IllegalArgumentException.class, () -> new Layout(1, B + 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new Layout(1, B, 0));
    }
}
