package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.Test;

class IdleLogTest {

    private static final long US = 1_000_000; // time unit of the first test: milliseconds, in nanoseconds

    @Test
    void splitsIdleTimeIntoStartUpSteadyAndWindDown() {
        Scaled log = new Scaled(new IdleLog(2));
        // Worker 0: waits 0–10 (start-up), 50–55 (steady), 90–120 (wind-down, clipped at 100).
        log.record(0, 0, 10);
        log.record(0, 50, 55);
        log.record(0, 90, 120);
        // Worker 1: was waiting before the run and until 20 (start-up, clipped at 0); busy at the end.
        log.record(1, -30, 20);
        log.record(1, 60, 70);
        assertEquals(ms(30, 15, 10), log.split(0, 100));
        // A wait still open at the end of the window counts up to the end.
        log.waiting(1, 95);
        assertEquals(ms(30, 15, 15), log.split(0, 100));
        log.working(1, 130);
        assertEquals(ms(30, 15, 15), log.split(0, 100));
        // A task taken from a non-empty cache is no wait.
        log.log.record(0, 60 * US, 60 * US + 1_000);
        assertEquals(ms(30, 15, 15), log.split(0, 100));
    }

    private static IdleLog.Split ms(long initial, long steady, long termination) {
        return new IdleLog.Split(initial * US, steady * US, termination * US);
    }

    /** The log with times in milliseconds. */
    private record Scaled(IdleLog log) {
        void record(int w, long from, long to) {
            log.record(w, from * US, to * US);
        }

        void waiting(int w, long at) {
            log.waiting(w, at * US);
        }

        void working(int w, long at) {
            log.working(w, at * US);
        }

        IdleLog.Split split(long start, long end) {
            return log.split(start * US, end * US);
        }
    }

    @Test
    void thePartsAddUpToTheIdleTimeInTheWindow() {
        long seed = Seeds.seed("IdleLogTest.addUp");
        SplittableRandom random = new SplittableRandom(seed);
        int workers = 4;
        IdleLog log = new IdleLog(workers);
        long start = 1_000_000;
        long end = 1_000_000_000;
        long expected = 0;
        for (int w = 0; w < workers; w++) {
            long t = random.nextLong(0, 2_000_000);
            while (t < end + 5_000_000) {
                long from = t;
                long to = from + random.nextLong(IdleLog.MIN_WAIT_NANOS, 3_000_000);
                log.record(w, from, to);
                expected += Math.max(0, Math.min(to, end) - Math.max(from, start));
                t = to + random.nextLong(1, 20_000_000);
            }
        }
        assertEquals(expected, log.split(start, end).totalNanos());
        long listed = 0;
        for (int w = 0; w < workers; w++) {
            for (IdleLog.Interval wait : log.waits(w, start, end)) {
                listed += wait.toNanos() - wait.fromNanos();
            }
        }
        assertEquals(expected, listed, "the waits listed for a timeline are the ones the split adds up");
    }
}
