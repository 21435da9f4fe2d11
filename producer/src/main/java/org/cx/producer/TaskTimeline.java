package org.cx.producer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cx.api.TaskId;

/**
 * Every task a producer's workers ran, and when: the raw material of a run's timeline ({@code cx bench fib
 * --timeline}). Recorded only if the producer was configured to keep it ({@link ProducerConfig#timeline()}); each
 * worker appends to its own list, so workers never contend. Keeps at most {@link #MAX_SPANS} spans per worker (the
 * oldest go first).
 */
public final class TaskTimeline {
    static final int MAX_SPANS = 1 << 18;

    /**
     * One execution.
     *
     * @param worker     the worker's index within its producer
     * @param startNanos {@code System.nanoTime()} when it started
     * @param endNanos   when it returned
     * @param task       the task it ran
     * @param kind       the task's class (simple name)
     * @param cachedNanos when it arrived in the producer's cache; {@link #CLAIMED} if the worker took it without
     *                    the server (a child of its last task, or a kept task its value completed)
     */
    public record Span(int worker, long startNanos, long endNanos, TaskId task, String kind, long cachedNanos) {
    }

    /** {@link Span#cachedNanos} of a task a worker claimed rather than took from the cache. */
    public static final long CLAIMED = Long.MIN_VALUE;

    /** When each cached task arrived, until it runs (bounded: cleared if tasks pile up that never run here). */
    private final Map<TaskId, Long> cachedAt = new ConcurrentHashMap<>();

    private final boolean enabled;
    private final ArrayDeque<Span>[] spans;

    @SuppressWarnings({"unchecked", "rawtypes"})
    public TaskTimeline(int workers, boolean enabled) {
        this.enabled = enabled;
        this.spans = new ArrayDeque[enabled ? workers : 0];
        for (int i = 0; i < spans.length; i++) {
            spans[i] = new ArrayDeque<>();
        }
    }

    public boolean enabled() {
        return enabled;
    }

    /** {@code task} arrived in the producer's cache at {@code nanos}. */
    public void cached(TaskId task, long nanos) {
        if (!enabled) {
            return;
        }
        if (cachedAt.size() >= MAX_SPANS) {
            cachedAt.clear(); // revoked and abandoned copies: forget them rather than grow
        }
        cachedAt.put(task, nanos);
    }

    /** Worker {@code worker} ran {@code task} (of class {@code kind}) from {@code startNanos} to {@code endNanos}. */
    public void record(int worker, long startNanos, long endNanos, TaskId task, String kind) {
        if (!enabled) {
            return;
        }
        Long cached = cachedAt.remove(task);
        ArrayDeque<Span> list = spans[worker];
        synchronized (list) {
            if (list.size() == MAX_SPANS) {
                list.pollFirst();
            }
            list.addLast(new Span(worker, startNanos, endNanos, task, kind, cached == null ? CLAIMED : cached));
        }
    }

    /** The executions that started in [{@code startNanos}, {@code endNanos}), worker by worker in start order. */
    public List<Span> between(long startNanos, long endNanos) {
        List<Span> out = new ArrayList<>();
        for (ArrayDeque<Span> list : spans) {
            synchronized (list) {
                for (Span s : list) {
                    if (s.startNanos() >= startNanos && s.startNanos() < endNanos) {
                        out.add(s);
                    }
                }
            }
        }
        return out;
    }
}
