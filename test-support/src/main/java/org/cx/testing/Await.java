package org.cx.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits on conditions instead of sleeping for fixed times. */
public final class Await {

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails with {@code what} and the elapsed time if it does not. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pauseNanos = 100_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
            pauseNanos = Math.min(pauseNanos * 2, 20_000_000);
        }
    }

    /** Polls {@code value} until {@code accept} holds for it; returns that value. */
    public static <T> T value(String what, Duration timeout, Supplier<T> value, java.util.function.Predicate<T> accept) {
        Object[] last = new Object[1];
        until(what, timeout, () -> {
            last[0] = value.get();
            return accept.test(cast(last[0]));
        });
        return cast(last[0]);
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }
}
