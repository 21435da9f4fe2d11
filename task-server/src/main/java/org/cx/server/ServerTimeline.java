package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.cx.api.TaskId;

/**
 * The scheduler's decisions on one server, with their times, for a run's timeline ({@code cx bench fib --timeline}):
 * when a task was stored here and how (submitted, spawned, transferred, adopted), when it was assigned to which
 * producer, when a copy was revoked, and when it left for another server (sent) and went on the wire after its
 * mirror group had recorded that (transmitted). Recorded only if the server's config asks for it
 * ({@link ServerConfig#timeline()}); at most {@link #MAX_EVENTS} are kept (the oldest go first).
 */
public final class ServerTimeline {
    static final int MAX_EVENTS = 1 << 20;

    /**
     * One decision.
     *
     * @param nanos {@code System.nanoTime()} when it was taken
     * @param what  {@code stored}, {@code assigned}, {@code revoked}, {@code sent} or {@code transmitted}
     * @param task  the task
     * @param how   for {@code stored}, how it came; for {@code sent} and {@code transmitted}, the network id of the
     *              server it went to; otherwise the producer it concerns
     */
    public record Event(long nanos, String what, TaskId task, String how) {
    }

    private final boolean enabled;
    private final ArrayDeque<Event> events = new ArrayDeque<>();

    ServerTimeline(boolean enabled) {
        this.enabled = enabled;
    }

    boolean enabled() {
        return enabled;
    }

    void record(String what, TaskId task, String how) {
        if (!enabled) {
            return;
        }
        Event e = new Event(System.nanoTime(), what, task, how);
        synchronized (events) {
            if (events.size() == MAX_EVENTS) {
                events.pollFirst();
            }
            events.addLast(e);
        }
    }

    /** The decisions taken in [{@code startNanos}, {@code endNanos}), in order. */
    public List<Event> between(long startNanos, long endNanos) {
        List<Event> out = new ArrayList<>();
        synchronized (events) {
            for (Event e : events) {
                if (e.nanos() >= startNanos && e.nanos() < endNanos) {
                    out.add(e);
                }
            }
        }
        return out;
    }
}
