package org.cx.producer;

import java.util.Arrays;

/**
 * How many tasks a producer keeps cached beyond those it is running. Pure: fed measurements, asked for numbers.
 *
 * <p>To keep W workers busy across a refill that takes one round trip, the cache must hold the tasks the workers
 * finish in that time: {@code W × rtt / taskTime}, with a margin of two, rounded up. Caching more than that only
 * strands tasks behind long-running ones while other producers idle. Requests are batched: a refill is sent when the
 * cache falls to half of that depth (the low watermark) and tops it up to the full depth (the high watermark). The
 * depth is at least two, so that the low watermark is at least one and a refill leaves while a task is still
 * cached: with a depth of one the producer asked only once its cache was empty, and a worker that took a task
 * shorter than the round trip (a composition after a leaf) then waited for the rest of it (decision 0030). The
 * depth is capped by {@code maxCached}. With prefetch off the producer asks for a task only when a worker is idle,
 * as in the paper's comparison.
 */
public final class PrefetchPolicy {
    /** Weight of a new sample in the moving average of task times: about the last 16 samples count. */
    private static final double EWMA_WEIGHT = 1.0 / 16;

    /** Round trips vary; cover twice the typical one so a slow one still finds a task cached. */
    private static final double RTT_MARGIN = 2.0;

    /** The least depth: a low watermark of one, so that a refill leaves before the cache is empty. */
    static final int MIN_DEPTH = 2;

    /** Round-trip samples the estimate is the median of. */
    static final int RTT_SAMPLES = 16;

    private int workers;
    private final boolean enabled;
    private final int maxCached;
    private double taskNanos = -1;
    private double rttNanos = -1;
    /** The last {@link #RTT_SAMPLES} round trips, as a ring. */
    private final long[] rttSamples = new long[RTT_SAMPLES];
    /** Room to sort the samples in, so that a sample costs no allocation on the event loop. */
    private final long[] rttSorted = new long[RTT_SAMPLES];
    /** Samples held (at most {@link #RTT_SAMPLES}), and where the next one goes. */
    private int rttCount;
    private int rttNext;

    public PrefetchPolicy(int workers, boolean enabled, int maxCached) {
        if (workers < 1 || maxCached < 1) {
            throw new IllegalArgumentException("workers and maxCached must be >= 1");
        }
        this.workers = workers;
        this.enabled = enabled;
        this.maxCached = maxCached;
    }

    /** Only {@code n} workers (0..W) may take tasks now (the owner's thermostat, or a pause): cache for those. */
    public void openWorkers(int n) {
        workers = Math.max(0, n);
    }

    public void recordTaskNanos(long nanos) {
        taskNanos = taskNanos < 0 ? nanos : taskNanos + EWMA_WEIGHT * (nanos - taskNanos);
    }

    /**
     * A sample of request-to-assignment time. The estimate is the median of the last {@link #RTT_SAMPLES} samples:
     * a sample includes any time the server waited for a task to become ready, which is not latency, and a median
     * ignores such samples while they are few, where the smallest sample would describe the machine's best moment
     * rather than its typical one (decision 0025).
     */
    public void recordRoundTripNanos(long nanos) {
        rttSamples[rttNext] = nanos;
        rttNext = (rttNext + 1) % RTT_SAMPLES;
        rttCount = Math.min(rttCount + 1, RTT_SAMPLES);
        System.arraycopy(rttSamples, 0, rttSorted, 0, rttCount);
        Arrays.sort(rttSorted, 0, rttCount);
        rttNanos = rttSorted[rttCount / 2];
    }

    /** The high watermark: tasks to keep cached beyond those running. */
    public int depth() {
        if (!enabled || workers == 0) {
            return 0;
        }
        if (taskNanos < 0 || rttNanos < 0) {
            return Math.min(maxCached, workers); // no measurements yet: one spare task per worker
        }
        double cover = RTT_MARGIN * workers * rttNanos / Math.max(1.0, taskNanos);
        long depth = Math.max(MIN_DEPTH, (long) Math.ceil(cover));
        return (int) Math.min(maxCached, depth);
    }

    /**
     * How many tasks the cache may hold before a worker stops caching ready children of its own there: the depth
     * while the producer runs one computation, one beside others, or it would run its own depth-first while theirs
     * wait (decision 0027).
     */
    public int ownChildrenAhead(int liveComputations) {
        return liveComputations > 1 ? Math.min(1, depth()) : depth();
    }

    /**
     * Credit to ask for now; negative to withdraw credit asked for earlier and not yet filled.
     *
     * @param idleWorkers  workers waiting for a task
     * @param cached       tasks cached and not started
     * @param outstanding  credit already asked for and not yet filled
     */
    public int creditToRequest(int idleWorkers, int cached, int outstanding) {
        int pipeline = cached + outstanding;
        int depth = depth();
        int target = depth + idleWorkers;
        boolean belowLowWatermark = pipeline <= depth / 2 || pipeline < idleWorkers;
        if (belowLowWatermark && pipeline < target) {
            return target - pipeline;
        }
        if (outstanding > 0 && pipeline > 2 * Math.max(1, target)) {
            // Asked for more than twice what the cache should hold now (the depth fell as tasks got longer): take
            // back what is beyond the target, or the server would strand it here behind running tasks.
            return -Math.min(outstanding, pipeline - target);
        }
        return 0;
    }

    public boolean enabled() {
        return enabled;
    }
}
