package org.cx.server;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.ToIntFunction;

/**
 * The ready tasks of every computation on this server, and which fresh one (no producer holds it) goes next:
 * <ol>
 *   <li>users share the producers by weight: next is the user with the fewest tasks held by producers here per unit
 *       of weight (a user of weight 2 gets twice the producers of a user of weight 1 while both have work);</li>
 *   <li>among that user's computations, the one of highest priority, and among equal priorities the one with the
 *       fewest tasks held (then the oldest);</li>
 *   <li>within the computation, the paper's order ({@link ReadyHeap}: fewest holders, then the task's priority,
 *       then age).</li>
 * </ol>
 * Shares are measured in tasks held by producers of this server (prefetched copies included) at the moment of the
 * choice: a computation submitted behind a large one gets the next producer that asks, not the one after the large
 * one's backlog. Picking is O(computations with fresh tasks); the single-computation case is O(1).
 */
final class ReadyQueues {
    /** One computation's ready tasks. */
    private static final class Queue {
        final long computation;
        final User user;
        final long since;
        int priority;
        final ReadyHeap heap = new ReadyHeap();
        /** Tasks in {@link #heap} some producer holds, as last counted. */
        int held;

        Queue(long computation, User user, int priority, long since) {
            this.computation = computation;
            this.user = user;
            this.priority = priority;
            this.since = since;
        }
    }

    /** One user's computations with ready tasks here. */
    private static final class User {
        final String name;
        int held;
        int queues;

        User(String name) {
            this.name = name;
        }
    }

    private final Map<Long, Queue> queues = new HashMap<>();
    private final Map<String, User> users = new HashMap<>();
    private final LongFunction<ComputationState> computations;
    private ToIntFunction<String> weights = user -> 1;
    private long opened;
    private int size;
    private int fresh;
    /** The queue {@link #peek} chose, until anything changes; null: choose again. */
    private Queue best;

    /** @param computations the computation a task belongs to, for its user and priority */
    ReadyQueues(LongFunction<ComputationState> computations) {
        this.computations = computations;
    }

    /** Each user's weight (at least 1). */
    void weights(ToIntFunction<String> userWeights) {
        this.weights = userWeights;
        best = null;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Entries with no holder: what may go to a producer or another server. */
    int freshCount() {
        return fresh;
    }

    /** The fresh task that goes next, or null if every ready task is held. */
    TaskEntry peek() {
        if (fresh == 0) {
            return null;
        }
        if (best == null) {
            best = choose();
        }
        return best.heap.peek();
    }

    void add(TaskEntry e) {
        Queue q = queues.get(computationOf(e));
        if (q == null) {
            q = open(computationOf(e));
        }
        int before = q.heap.size();
        q.heap.add(e);
        changed(q, before);
    }

    void remove(TaskEntry e) {
        if (e.heapIndex < 0) {
            return;
        }
        Queue q = queues.get(computationOf(e));
        int before = q.heap.size();
        q.heap.remove(e);
        changed(q, before);
    }

    /** Restores order after {@code e}'s holder count changed. */
    void update(TaskEntry e) {
        if (e.heapIndex < 0) {
            return;
        }
        Queue q = queues.get(computationOf(e));
        q.heap.update(e);
        changed(q, q.heap.size());
    }

    /** Computation {@code computation} has a new priority. */
    void reprioritize(long computation, int priority) {
        Queue q = queues.get(computation);
        if (q != null) {
            q.priority = priority;
            best = null;
        }
    }

    /** Tasks of {@code computation} that producers hold here (its share now). */
    int held(long computation) {
        Queue q = queues.get(computation);
        return q == null ? 0 : q.held;
    }

    private static long computationOf(TaskEntry e) {
        return e.envelope.id().computation();
    }

    private Queue open(long computation) {
        ComputationState c = computations.apply(computation);
        String owner = c == null ? "" : c.owner;
        User user = users.computeIfAbsent(owner, User::new);
        user.queues++;
        Queue q = new Queue(computation, user, c == null ? 0 : c.priority, opened++);
        queues.put(computation, q);
        return q;
    }

    /** Recounts {@code q} after a change to its heap, which held {@code sizeBefore} entries before it. */
    private void changed(Queue q, int sizeBefore) {
        best = null;
        size += q.heap.size() - sizeBefore;
        int freshBefore = sizeBefore - q.held;
        int held = q.heap.size() - q.heap.freshCount();
        fresh += q.heap.freshCount() - freshBefore;
        q.user.held += held - q.held;
        q.held = held;
        if (q.heap.isEmpty()) {
            queues.remove(q.computation);
            if (--q.user.queues == 0) {
                users.remove(q.user.name);
            }
        }
    }

    private Queue choose() {
        Queue chosen = null;
        for (Queue q : queues.values()) {
            if (q.heap.freshCount() > 0 && (chosen == null || before(q, chosen))) {
                chosen = q;
            }
        }
        return chosen;
    }

    /** Whether {@code a} goes before {@code b}. */
    private boolean before(Queue a, Queue b) {
        if (a.user != b.user) {
            // a.held / a.weight < b.held / b.weight, without division
            long left = (long) a.user.held * Math.max(1, weights.applyAsInt(b.user.name));
            long right = (long) b.user.held * Math.max(1, weights.applyAsInt(a.user.name));
            if (left != right) {
                return left < right;
            }
            return a.since < b.since;
        }
        if (a.priority != b.priority) {
            return a.priority > b.priority;
        }
        if (a.held != b.held) {
            return a.held < b.held;
        }
        return a.since < b.since;
    }
}
