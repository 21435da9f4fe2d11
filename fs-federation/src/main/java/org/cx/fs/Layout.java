package org.cx.fs;

import java.util.ArrayList;
import java.util.List;

/**
 * Where each block of a striped file is: stripe units of {@code stripeSize} bytes go round-robin to {@code columns}
 * columns, so block {@code i} is in column {@code (i / unitBlocks) % columns}, at the same place in that column as
 * in the run of units that column holds.
 *
 * @param size       the file's length in bytes
 * @param stripeSize bytes of a stripe unit (a multiple of {@link Blocks#SIZE}); ignored with one column
 * @param columns    how many columns
 */
public record Layout(long size, long stripeSize, int columns) {
    public Layout {
        if (columns < 1) {
            throw new IllegalArgumentException("a file has at least one column, not " + columns);
        }
        if (columns > 1 && (stripeSize < Blocks.SIZE || stripeSize % Blocks.SIZE != 0)) {
            throw new IllegalArgumentException("a stripe unit is a multiple of " + Blocks.SIZE + " bytes, not "
                    + stripeSize);
        }
    }

    public int blocks() {
        return Blocks.count(size);
    }

    private long unitBlocks() {
        return columns == 1 ? Long.MAX_VALUE / 4 : stripeSize / Blocks.SIZE;
    }

    /** The column that holds block {@code i}. */
    public int column(int i) {
        return (int) ((i / unitBlocks()) % columns);
    }

    /** Where block {@code i} is within its column, in blocks. */
    public long indexInColumn(int i) {
        long unit = unitBlocks();
        return columns == 1 ? i : (i / (unit * columns)) * unit + i % unit;
    }

    /** The blocks of the file in column {@code c}, in order. */
    public List<Integer> blocksOf(int c) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < blocks(); i++) {
            if (column(i) == c) {
                out.add(i);
            }
        }
        return out;
    }

    /** The bytes of block {@code i}: a whole block but for the file's last. */
    public int blockLength(int i) {
        return (int) Math.min(Blocks.SIZE, size - (long) i * Blocks.SIZE);
    }
}
