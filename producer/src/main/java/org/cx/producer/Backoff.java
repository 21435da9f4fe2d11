package org.cx.producer;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long a producer waits before it looks for a server again: doubling from {@code first} up to {@code max}, each
 * wait drawn from the upper half of its step (so that producers a server restart left at once do not come back at
 * once), and back to {@code first} after a success.
 */
final class Backoff {
    private final Duration first;
    private final Duration max;
    private final RandomGenerator random;
    private Duration step;

    Backoff(Duration first, Duration max, RandomGenerator random) {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("need 0 < first <= max, got " + first + " and " + max);
        }
        this.first = first;
        this.max = max;
        this.random = random;
        this.step = first;
    }

    /** The next wait, in [step/2, step]; the step then doubles, up to {@code max}. */
    Duration next() {
        long stepNanos = step.toNanos();
        Duration wait = Duration.ofNanos(stepNanos / 2 + random.nextLong(stepNanos / 2 + 1));
        step = step.multipliedBy(2).compareTo(max) > 0 ? max : step.multipliedBy(2);
        return wait;
    }

    /** Starts over from {@code first}. */
    void reset() {
        step = first;
    }
}
