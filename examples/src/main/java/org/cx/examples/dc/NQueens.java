package org.cx.examples.dc;

import java.util.Arrays;
import org.cx.api.Continuation;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.api.ValueTask;

/**
 * Counts the ways to place n queens on an n × n board so that none attacks another, written by hand: a task
 * places the next row's queen in every safe column, one child task each, and a {@link Sum} of as many inputs adds
 * their counts (variable fan-in: from none to n). Below {@code cutoff} rows left, a task counts sequentially.
 */
public final class NQueens extends ValueTask<Long> {
    private final int n;
    private final int cutoff;
    /** The column of the queen on each row placed so far. */
    private final int[] placed;

    public NQueens(int n, int cutoff) {
        this(n, cutoff, new int[0]);
    }

    private NQueens(int n, int cutoff, int[] placed) {
        this.n = n;
        this.cutoff = cutoff;
        this.placed = placed;
    }

    @Override
    public void execute(TaskContext context) {
        if (n - placed.length <= cutoff) {
            context.sendResult(count(n, placed));
            return;
        }
        int[] safe = safeColumns(n, placed);
        TaskId sum = context.storeTask(new Sum(safe.length), context.continuation());
        for (int i = 0; i < safe.length; i++) {
            context.storeTask(new NQueens(n, cutoff, place(placed, safe[i])), Continuation.to(sum, i));
        }
    }

    /** Shallower placements first: they spread the work. */
    @Override
    public long priority() {
        return -placed.length;
    }

    /** The columns of the next row where a queen is not attacked by those {@code placed}. */
    static int[] safeColumns(int n, int[] placed) {
        int row = placed.length;
        return java.util.stream.IntStream.range(0, n).filter(col -> {
            for (int r = 0; r < row; r++) {
                int c = placed[r];
                if (c == col || Math.abs(c - col) == row - r) {
                    return false;
                }
            }
            return true;
        }).toArray();
    }

    static int[] place(int[] placed, int column) {
        int[] next = Arrays.copyOf(placed, placed.length + 1);
        next[placed.length] = column;
        return next;
    }

    /** Completions of {@code placed} to a whole board, counted sequentially. */
    static long count(int n, int[] placed) {
        if (placed.length == n) {
            return 1;
        }
        long total = 0;
        for (int column : safeColumns(n, placed)) {
            total += count(n, place(placed, column));
        }
        return total;
    }

    /** Adds its inputs' counts. */
    public static final class Sum extends ValueTask<Long> {
        public Sum(int parts) {
            super(parts);
        }

        @Override
        public void execute(TaskContext context) {
            long total = 0;
            for (int i = 0; i < arity(); i++) {
                total += this.<Long>input(i);
            }
            context.sendResult(total);
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
