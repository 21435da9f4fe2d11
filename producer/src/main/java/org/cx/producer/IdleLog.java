package org.cx.producer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When each worker of a producer waited for a task: intervals of {@code System.nanoTime()}, per worker. A report
 * splits the idle time of a run the way the CX paper's Fig. 6 does ({@link #split}). Thread-safe; each worker
 * appends to its own list. Waits shorter than {@link #MIN_WAIT_NANOS} (a task taken from a non-empty cache) are
 * not idle time. Keeps at most {@link #MAX_INTERVALS} intervals per worker (the oldest go first).
 */
public final class IdleLog {
    static final int MAX_INTERVALS = 1 << 20;
    static final long MIN_WAIT_NANOS = 5_000;

    private final ArrayDeque<long[]>[] intervals;
    /** Per worker: when its current wait began, or {@link Long#MIN_VALUE} if it is not waiting. */
    private final AtomicLongArray waitingSince;

    /** Idle time in a window, in nanoseconds: before a worker's first task, between tasks, after its last one. */
    public record Split(long initialNanos, long steadyNanos, long terminationNanos) {
        public long totalNanos() {
            return initialNanos + steadyNanos + terminationNanos;
        }

        public Split plus(Split o) {
            return new Split(initialNanos + o.initialNanos, steadyNanos + o.steadyNanos,
                    terminationNanos + o.terminationNanos);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public IdleLog(int workers) {
        intervals = new ArrayDeque[workers];
        waitingSince = new AtomicLongArray(workers);
        for (int i = 0; i < workers; i++) {
            intervals[i] = new ArrayDeque<>();
            waitingSince.set(i, Long.MIN_VALUE);
        }
    }

    /** Worker {@code worker} starts waiting for a task. */
    public void waiting(int worker, long nowNanos) {
        waitingSince.set(worker, nowNanos);
    }

    /** Worker {@code worker} has a task again. */
    public void working(int worker, long nowNanos) {
        long since = waitingSince.getAndSet(worker, Long.MIN_VALUE);
        if (since != Long.MIN_VALUE) {
            record(worker, since, nowNanos);
        }
    }

    /** Worker {@code worker} waited from {@code fromNanos} to {@code toNanos}. */
    public void record(int worker, long fromNanos, long toNanos) {
        if (toNanos - fromNanos < MIN_WAIT_NANOS) {
            return;
        }
        ArrayDeque<long[]> list = intervals[worker];
        synchronized (list) {
            if (list.size() == MAX_INTERVALS) {
                list.pollFirst();
            }
            list.addLast(new long[] {fromNanos, toNanos});
        }
    }

    /**
     * The idle time within [{@code startNanos}, {@code endNanos}) (a computation's run), per worker: the
     * <em>initial transient</em> runs from the start until the worker first stops waiting, the <em>termination
     * transient</em> from when it last starts waiting until the end (if it waits at the end), and the rest is
     * <em>steady state</em>. A worker that waits through the whole window counts as initial.
     */
    public Split split(long startNanos, long endNanos) {
        Split total = new Split(0, 0, 0);
        for (int w = 0; w < intervals.length; w++) {
            total = total.plus(splitOne(clipped(w, startNanos, endNanos), startNanos, endNanos));
        }
        return total;
    }

    /** One wait: from when a worker started waiting to when it had a task again ({@code System.nanoTime()}). */
    public record Interval(long fromNanos, long toNanos) {
    }

    /** Worker threads this log covers. */
    public int workers() {
        return intervals.length;
    }

    /**
     * Worker {@code worker}'s waits within [{@code startNanos}, {@code endNanos}), clipped to it, in order; a wait
     * still going on counts until {@code endNanos}. These are the intervals {@link #split} adds up.
     */
    public List<Interval> waits(int worker, long startNanos, long endNanos) {
        List<Interval> out = new ArrayList<>();
        for (long[] iv : clipped(worker, startNanos, endNanos)) {
            out.add(new Interval(iv[0], iv[1]));
        }
        return out;
    }

    private List<long[]> clipped(int worker, long startNanos, long endNanos) {
        ArrayDeque<long[]> list = intervals[worker];
        List<long[]> clipped = new ArrayList<>();
        synchronized (list) {
            for (long[] iv : list) {
                clip(iv[0], iv[1], startNanos, endNanos, clipped);
            }
        }
        long since = waitingSince.get(worker);
        if (since != Long.MIN_VALUE) {
            clip(since, endNanos, startNanos, endNanos, clipped); // waiting now: open until the end
        }
        return clipped;
    }

    private static void clip(long from, long to, long start, long end, List<long[]> into) {
        long f = Math.max(from, start);
        long t = Math.min(to, end);
        if (t > f) {
            into.add(new long[] {f, t});
        }
    }

    private static Split splitOne(List<long[]> idle, long start, long end) {
        long initial = 0;
        long steady = 0;
        long termination = 0;
        for (int i = 0; i < idle.size(); i++) {
            long[] iv = idle.get(i);
            long length = iv[1] - iv[0];
            if (i == 0 && iv[0] == start) {
                initial += length; // waiting when the run began: start-up
            } else if (i == idle.size() - 1 && iv[1] == end) {
                termination += length; // still waiting when it ended: wind-down
            } else {
                steady += length;
            }
        }
        return new Split(initial, steady, termination);
    }
}
