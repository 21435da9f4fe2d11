package org.cx.fs;

import java.util.concurrent.TimeUnit;

/**
 * Holds a file server to a bandwidth (bytes a second) on one machine, standing in for a disk or link of that speed:
 * each transfer of {@code n} bytes waits until the bytes before it would have passed. Zero: no limit.
 */
final class Throttle {
    private final long bytesPerSecond;
    private long nextFreeNanos;

    Throttle(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
    }

    void take(int bytes) {
        if (bytesPerSecond <= 0) {
            return;
        }
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            long start = Math.max(now, nextFreeNanos);
            nextFreeNanos = start + TimeUnit.SECONDS.toNanos(1) * bytes / bytesPerSecond;
            wait = start - now;
        }
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
