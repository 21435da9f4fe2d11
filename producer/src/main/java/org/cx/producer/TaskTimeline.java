package org.cx.producer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
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
     */
    public record Span(int worker, long startNanos, long endNanos, TaskId task, String kind) {
    }

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

    /** Worker {@code worker} ran {@code task} (of class {@code kind}) from {@code startNanos} to {@code endNanos}. */
    public void record(int worker, long startNanos, long endNanos, TaskId task, String kind) {
        if (!enabled) {
            return;
        }
        ArrayDeque<Span> list = spans[worker];
        synchronized (list) {
            if (list.size() == MAX_SPANS) {
                list.pollFirst();
            }
            list.addLast(new Span(worker, startNanos, endNanos, task, kind));
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
