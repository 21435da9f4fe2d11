package org.cx.examples.fib;

import java.util.concurrent.locks.LockSupport;

/**
 * Synthetic load added to each kind of Fibonacci task: {@code SLEEP} parks the thread (emulates many remote
 * producers on few cores), {@code SPIN} burns CPU for the time given (real work), {@code NONE} adds nothing.
 *
 * @param kind        how the time is spent
 * @param decomposeNanos per decomposition task
 * @param leafNanos      per boundary (leaf) task
 * @param composeNanos   per composition task
 *
 * <p>The times are those of a reference host; on a host of {@link org.cx.api.TaskContext#hostSpeed() speed} s
 * each takes 1/s of it, which is how the benchmarks emulate a mix of processor types.
 */
public record Load(Kind kind, long decomposeNanos, long leafNanos, long composeNanos) {

    public enum Kind { NONE, SLEEP, SPIN }

    public static final Load NONE = new Load(Kind.NONE, 0, 0, 0);

    public static Load ofMillis(Kind kind, double decomposeMs, double leafMs, double composeMs) {
        return new Load(kind, (long) (decomposeMs * 1e6), (long) (leafMs * 1e6), (long) (composeMs * 1e6));
    }

    /** Spends one decomposition task's load now, on a host of the given speed. */
    public void decompose(double hostSpeed) {
        spend(decomposeNanos, hostSpeed);
    }

    /** Spends one boundary task's load now, on a host of the given speed. */
    public void leaf(double hostSpeed) {
        spend(leafNanos, hostSpeed);
    }

    /** Spends one composition task's load now, on a host of the given speed. */
    public void compose(double hostSpeed) {
        spend(composeNanos, hostSpeed);
    }

    private void spend(long nanos, double hostSpeed) {
        long scaled = (long) (nanos / hostSpeed);
        if (scaled <= 0 || kind == Kind.NONE) {
            return;
        }
        long deadline = System.nanoTime() + scaled;
        if (kind == Kind.SLEEP) {
            for (long left = scaled; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
        } else {
            long sink = 0;
            while (System.nanoTime() < deadline) {
                sink += Long.numberOfTrailingZeros(sink + deadline);
            }
            if (sink == 42) {
                Thread.onSpinWait();
            }
        }
    }
}
