package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final long SEED = new Random().nextLong();

    static {
        System.out.println("BackoffTest seed " + SEED);
    }

    @Test
    void waitsDoubleUpToTheMaxEachInTheUpperHalfOfItsStep() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), new Random(SEED));
        long[] steps = {1, 2, 4, 8, 16, 30, 30, 30};
        for (long step : steps) {
            Duration wait = backoff.next();
            assertTrue(wait.toMillis() >= step * 500 && wait.toMillis() <= step * 1000,
                    "step " + step + " s waited " + wait);
        }
    }

    @Test
    void aResetStartsOver() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), new Random(SEED));
        for (int i = 0; i < 10; i++) {
            backoff.next();
        }
        backoff.reset();
        assertTrue(backoff.next().toMillis() <= 100);
    }

    @Test
    void aMaxBelowTheFirstStepIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), new Random(SEED)));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), new Random(SEED)));
    }
}
