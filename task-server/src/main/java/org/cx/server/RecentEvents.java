package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The last membership changes a server decided or saw (a server joined, failed, was taken over; a new primary root),
 * with the server clock's time, for the dashboard and {@code cx status}: a bounded list, the oldest dropped first.
 */
final class RecentEvents {
    /** One change: when (the server's clock, nanoseconds) and what, in words. */
    record Event(long atNanos, String what) {
    }

    private final int capacity;
    private final ArrayDeque<Event> events = new ArrayDeque<>();

    RecentEvents(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    synchronized void record(long atNanos, String what) {
        if (events.size() == capacity) {
            events.removeFirst();
        }
        events.addLast(new Event(atNanos, what));
    }

    /** The events kept, oldest first. */
    synchronized List<Event> list() {
        return new ArrayList<>(events);
    }
}
