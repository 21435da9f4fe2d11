package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PrefetchPolicyTest {

    @Test
    void depthCoversARoundTripOfWork() {
        PrefetchPolicy p = new PrefetchPolicy(1, true, 256);
        assertEquals(1, p.depth(), "before measurements: one spare per worker");
        p.recordTaskNanos(40_000_000);
        p.recordRoundTripNanos(200_000);
        assertEquals(2, p.depth(), "long tasks: two, so that a refill leaves while one is still cached");
        assertEquals(1, p.creditToRequest(0, 1, 0), "one left of two: the refill leaves now, not once it is gone");
        PrefetchPolicy fast = new PrefetchPolicy(2, true, 256);
        fast.recordTaskNanos(2_000);
        fast.recordRoundTripNanos(100_000);
        assertEquals(200, fast.depth(), "2 workers x 100 us / 2 us, with a margin of 2");
        PrefetchPolicy capped = new PrefetchPolicy(8, true, 64);
        capped.recordTaskNanos(1_000);
        capped.recordRoundTripNanos(1_000_000);
        assertEquals(64, capped.depth());
    }

    @Test
    void ownChildrenAreCachedToTheDepthOnlyWhileOneComputationRuns() {
        PrefetchPolicy fast = new PrefetchPolicy(2, true, 256);
        fast.recordTaskNanos(2_000);
        fast.recordRoundTripNanos(100_000);
        assertEquals(200, fast.ownChildrenAhead(0));
        assertEquals(200, fast.ownChildrenAhead(1));
        assertEquals(1, fast.ownChildrenAhead(2), "beside another computation: one");
        assertEquals(0, new PrefetchPolicy(2, false, 256).ownChildrenAhead(1), "no prefetch: none");
    }

    @Test
    void roundTripEstimateIsTheMedianOfRecentSamples() {
        PrefetchPolicy p = new PrefetchPolicy(1, true, 100_000);
        p.recordTaskNanos(1_000);
        for (int i = 0; i < 10; i++) {
            p.recordRoundTripNanos(i == 4 ? 50_000_000 : 100_000); // once, the server had nothing to give for a while
        }
        assertEquals(200, p.depth(), "one slow sample among ten moves nothing");
        for (int i = 0; i < 5; i++) {
            p.recordRoundTripNanos(i % 2 == 0 ? 20_000 : 3_000_000); // a loaded network: now fast, now slow
        }
        assertEquals(200, p.depth(), "not the smallest sample: 15 samples, the eighth of them");
        for (int i = 0; i < PrefetchPolicy.RTT_SAMPLES; i++) {
            p.recordRoundTripNanos(3_000_000);
        }
        assertEquals(6_000, p.depth(), "round trips that stay long are what the cache must cover");
    }

    @Test
    void creditBatchesBetweenWatermarks() {
        PrefetchPolicy p = new PrefetchPolicy(2, true, 256);
        p.recordTaskNanos(2_000);
        p.recordRoundTripNanos(100_000);
        assertEquals(200, p.creditToRequest(0, 0, 0));
        assertEquals(0, p.creditToRequest(0, 150, 0), "above the low watermark: wait");
        assertEquals(100, p.creditToRequest(0, 60, 40), "at the low watermark: top up");
        assertEquals(202, p.creditToRequest(2, 0, 0), "idle workers add to the target");
    }

    @Test
    void creditBeyondTwiceTheTargetIsWithdrawn() {
        PrefetchPolicy p = new PrefetchPolicy(1, true, 256);
        p.recordTaskNanos(2_000);
        p.recordRoundTripNanos(100_000);
        assertEquals(100, p.creditToRequest(0, 0, 0), "zero-load tasks: a deep cache");
        p.recordTaskNanos(40_000_000);
        for (int i = 0; i < 100; i++) {
            p.recordTaskNanos(40_000_000); // then 40 ms tasks: the depth falls to its least, two
        }
        assertEquals(2, p.depth());
        assertEquals(-98, p.creditToRequest(0, 0, 100), "keep the target, withdraw the rest");
        assertEquals(-97, p.creditToRequest(0, 3, 97), "the cache already holds more than the target: withdraw all");
        assertEquals(0, p.creditToRequest(0, 2, 1), "within twice the target: leave it");
        assertEquals(0, p.creditToRequest(0, 5, 0), "nothing outstanding: nothing to withdraw");
    }

    @Test
    void withoutPrefetchOnlyIdleWorkersAsk() {
        PrefetchPolicy p = new PrefetchPolicy(4, false, 256);
        assertEquals(0, p.depth());
        assertEquals(0, p.creditToRequest(0, 0, 0));
        assertEquals(3, p.creditToRequest(3, 0, 0));
        assertEquals(1, p.creditToRequest(3, 1, 1));
    }
}
