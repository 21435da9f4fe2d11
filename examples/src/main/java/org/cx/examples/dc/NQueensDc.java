package org.cx.examples.dc;

import java.util.ArrayList;
import java.util.List;
import org.cx.api.DivideAndConquer;
import org.cx.api.TaskContext;

/** {@link NQueens} in four methods: a problem is the columns of the queens placed so far. */
public record NQueensDc(int n, int cutoff) implements DivideAndConquer<int[], Long> {
    @Override
    public boolean isSmall(int[] placed) {
        return n - placed.length <= cutoff;
    }

    @Override
    public Long solve(int[] placed, TaskContext context) {
        return NQueens.count(n, placed);
    }

    @Override
    public List<int[]> split(int[] placed, TaskContext context) {
        List<int[]> parts = new ArrayList<>();
        for (int column : NQueens.safeColumns(n, placed)) {
            parts.add(NQueens.place(placed, column));
        }
        return parts;
    }

    @Override
    public Long combine(List<Long> parts, TaskContext context) {
        return parts.stream().mapToLong(Long::longValue).sum();
    }
}
