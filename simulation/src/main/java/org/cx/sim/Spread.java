package org.cx.sim;

import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;

/**
 * A workload unlike Fibonacci: each problem splits into one to four parts (the number drawn from its key), so
 * compositions wait for a varying number of inputs, and every value is a byte array of varying size whose content
 * depends on the order of its parts. {@link #expected} computes the same value directly.
 */
public final class Spread extends Task {
    private final long key;
    private final int depth;

    public Spread(long key, int depth) {
        this.key = key;
        this.depth = depth;
    }

    @Override
    public void execute(TaskContext context) {
        if (depth == 0) {
            context.sendResult(leaf(key));
            return;
        }
        int parts = parts(key);
        TaskId join = context.storeTask(new Join(parts), context.continuation());
        for (int i = 0; i < parts; i++) {
            context.storeTask(new Spread(mix(key + i), depth - 1), Continuation.to(join, i));
        }
    }

    /** The value of the problem {@code key} at {@code depth}, computed here. */
    public static byte[] expected(long key, int depth) {
        if (depth == 0) {
            return leaf(key);
        }
        int parts = parts(key);
        byte[][] values = new byte[parts][];
        for (int i = 0; i < parts; i++) {
            values[i] = expected(mix(key + i), depth - 1);
        }
        return combine(values);
    }

    /** Tasks the problem spawns, itself included. */
    public static long taskCount(long key, int depth) {
        if (depth == 0) {
            return 1;
        }
        long n = 2; // itself and its join
        for (int i = 0; i < parts(key); i++) {
            n += taskCount(mix(key + i), depth - 1);
        }
        return n;
    }

    static int parts(long key) {
        return 1 + (int) Long.remainderUnsigned(key, 4);
    }

    static long mix(long x) {
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    private static byte[] leaf(long key) {
        byte[] b = new byte[1 + (int) Long.remainderUnsigned(key >>> 8, 300)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) mix(key + i);
        }
        return b;
    }

    /** An order-sensitive digest of the parts, then as many bytes as the parts had, modulo 500. */
    static byte[] combine(byte[][] parts) {
        long digest = 1;
        int total = 0;
        for (byte[] p : parts) {
            for (byte x : p) {
                digest = digest * 1_000_003 + x;
            }
            digest = mix(digest);
            total += p.length;
        }
        byte[] out = new byte[8 + total % 500];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (digest >>> (8 * (i % 8)) ^ i);
        }
        return out;
    }

    /** A short form of a value for the trace. */
    static String show(byte[] value) {
        return value.length + " bytes, digest " + Long.toHexString(java.util.Arrays.hashCode(value));
    }

    /** Waits for its parts (one to four) and combines them. */
    public static final class Join extends Task {
        public Join(int parts) {
            super(parts);
        }

        @Override
        public void execute(TaskContext context) {
            byte[][] parts = new byte[arity()][];
            for (int i = 0; i < parts.length; i++) {
                parts[i] = input(i);
            }
            context.sendResult(combine(parts));
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
