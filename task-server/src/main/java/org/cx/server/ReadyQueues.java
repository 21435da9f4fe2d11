package org.cx.server;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.ToIntFunction;

/**
 * The ready tasks of every computation on this server, and which fresh one (no producer holds it) goes next, by
 * fair share of recent use:
 * <ol>
 *   <li>users share the producers by weight: next is the user whose recent use of this server's producers, divided
 *       by its weight, is least (a user of weight 2 gets twice the producer time of a user of weight 1 while both
 *       have work);</li>
 *   <li>among that user's computations, the one of highest priority, and among equal priorities the one whose
 *       recent use is least (then the oldest);</li>
 *   <li>within the computation, the paper's order ({@link ReadyHeap}: fewest holders, then the task's priority,
 *       then age).</li>
 * </ol>
 * Use is producer time: each task handed to a producer counts its computation's mean task time so far, and what
 * is counted halves every {@link #HALF_LIFE_NANOS}. So a computation submitted behind a large one has used nothing
 * and gets the producers that ask next until its use catches up; a large one left alone gets them all; and
 * computations that run side by side for long converge to equal producer time. Decay is the same for everyone, so
 * comparisons made now stay true later and the choice is only made again when something changes. Picking is
 * O(computations with fresh tasks); the single-computation case is O(1).
 */
final class ReadyQueues {
    /** Recent use counts half after this long. */
    static final long HALF_LIFE_NANOS = 10_000_000_000L;
    /** What a task counts before its computation has a measured mean: 1 ms. */
    static final long FIRST_TASK_NANOS = 1_000_000;
    private static final double DECAY_PER_NANO = Math.log(2) / HALF_LIFE_NANOS;

    /** Producer time used, decaying: its value at {@code at}. */
    static final class Usage {
        private double value;
        private long at;

        double at(long nowNanos) {
            return value == 0 ? 0 : value * Math.exp(-DECAY_PER_NANO * (nowNanos - at));
        }

        void add(double nanos, long nowNanos) {
            value = at(nowNanos) + nanos;
            at = nowNanos;
        }
    }

    /** One computation's ready tasks. */
    private static final class Queue {
        final ComputationState computation;
        final User user;
        final long since;
        final ReadyHeap heap = new ReadyHeap();
        /** Tasks in {@link #heap} some producer holds, as last counted. */
        int held;

        Queue(ComputationState computation, User user, long since) {
            this.computation = computation;
            this.user = user;
            this.since = since;
        }
    }

    /** A user's recent use, and how many of its computations have ready tasks here. */
    private static final class User {
        final String name;
        final Usage usage = new Usage();
        int queues;

        User(String name) {
            this.name = name;
        }
    }

    private final Map<Long, Queue> queues = new HashMap<>();
    /** Users with ready tasks here or with recent use. */
    private final Map<String, User> users = new HashMap<>();
    private final LongFunction<ComputationState> computations;
    private ToIntFunction<String> weights = user -> 1;
    private long now;
    private long opened;
    private int size;
    private int fresh;
    /** The queue found last by {@link #queueOf}, while it is in {@link #queues}. */
    private Queue last;
    /** The queue {@link #peek} chose, until anything changes; null: choose again. */
    private Queue best;

    /** @param computations the computation a task belongs to, for its user, priority and use */
    ReadyQueues(LongFunction<ComputationState> computations) {
        this.computations = computations;
    }

    /** Each user's weight (at least 1). */
    void weights(ToIntFunction<String> userWeights) {
        this.weights = userWeights;
        best = null;
    }

    /** The time now, for what is used from now on. */
    void tick(long nowNanos) {
        this.now = nowNanos;
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
        Queue q = queueOf(e);
        if (q == null) {
            q = open(e.computation);
        }
        int before = q.heap.size();
        q.heap.add(e);
        changed(q, before);
    }

    void remove(TaskEntry e) {
        if (e.heapIndex < 0) {
            return;
        }
        Queue q = queueOf(e);
        int before = q.heap.size();
        q.heap.remove(e);
        changed(q, before);
    }

    /** Restores order after {@code e}'s holder count changed. */
    void update(TaskEntry e) {
        if (e.heapIndex < 0) {
            return;
        }
        Queue q = queueOf(e);
        q.heap.update(e);
        changed(q, q.heap.size());
    }

    /** A producer was given a copy of {@code e}: its computation and user have used a task's time more. */
    void used(TaskEntry e) {
        Queue q = queueOf(e);
        if (q != null) {
            double cost = q.computation.meanTaskNanos(FIRST_TASK_NANOS);
            q.computation.usage.add(cost, now);
            q.user.usage.add(cost, now);
            best = null;
        }
    }

    /** Computation {@code computation} has a new priority (already set on its state). */
    void reprioritized(long computation) {
        if (queues.containsKey(computation)) {
            best = null;
        }
    }

    /** Computations with ready tasks here. */
    int computationCount() {
        return queues.size();
    }

    /**
     * Whether {@code a} is clearly owed the producers more than {@code b}: its user has used them at most half as much
     * as {@code b}'s (each by its weight), and less by {@code margin} nanoseconds at least; for computations of one
     * user, {@code a} has no lower priority and has used them that much less itself. A priority alone does not make
     * a computation owed more: a large computation of high priority gets the producers first anyway. False unless
     * both have ready tasks here.
     */
    boolean owedMoreThan(long a, long b, double margin) {
        Queue qa = queues.get(a);
        Queue qb = queues.get(b);
        return qa != null && qb != null && clearlyBefore(qa, qb, margin);
    }

    /** Whether some computation with ready tasks here, held or not, is clearly owed more than {@code b}. */
    boolean anyOwedMoreThan(long b, double margin) {
        return clearlyBeside(b, false, margin);
    }

    /** Whether {@code a} is clearly owed more than some other computation with ready tasks here. */
    boolean owedMoreThanAny(long a, double margin) {
        return clearlyBeside(a, true, margin);
    }

    /** Whether {@code id} goes clearly before ({@code before}) or clearly after some other computation here. */
    private boolean clearlyBeside(long id, boolean before, double margin) {
        Queue q = queues.get(id);
        if (q == null) {
            return false;
        }
        for (Queue other : queues.values()) {
            if (other != q && (before ? clearlyBefore(q, other, margin) : clearlyBefore(other, q, margin))) {
                return true;
            }
        }
        return false;
    }

    private boolean clearlyBefore(Queue a, Queue b, double margin) {
        if (a.user != b.user) {
            return clearlyLess(a.user.usage.at(now) / Math.max(1, weights.applyAsInt(a.user.name)),
                    b.user.usage.at(now) / Math.max(1, weights.applyAsInt(b.user.name)), margin);
        }
        return a.computation.priority >= b.computation.priority
                && clearlyLess(a.computation.usage.at(now), b.computation.usage.at(now), margin);
    }

    /** Use {@code a} is at most half of {@code b}, and less by {@code margin} at least. */
    private static boolean clearlyLess(double a, double b, double margin) {
        return 2 * a <= b && b - a >= margin;
    }

    /**
     * Whether more than {@code n} fresh tasks are of computations clearly owed more than some other here ({@link
     * #owedMoreThanAny}): what the workers freeing next would take if nothing else were prefetched. Stops counting
     * once there are.
     */
    boolean freshOwedMoreThan(int n, double margin) {
        if (fresh <= n) {
            return false;
        }
        int count = 0;
        for (Queue q : queues.values()) {
            int f = q.heap.freshCount();
            if (f > 0 && clearlyBeside(q.computation.id, true, margin)) {
                count += f;
                if (count > n) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Tasks of {@code computation} that producers hold here. */
    int held(long computation) {
        Queue q = queues.get(computation);
        return q == null ? 0 : q.held;
    }

    /** {@code e}'s computation's queue, or null; most calls in a row are for one computation. */
    private Queue queueOf(TaskEntry e) {
        Queue q = last;
        if (q == null || q.computation.id != e.computation) {
            q = queues.get(e.computation);
            if (q != null) {
                last = q;
            }
        }
        return q;
    }

    private Queue open(long id) {
        ComputationState c = computations.apply(id);
        if (c == null) {
            c = new ComputationState(id, now, null); // not expected: a task's computation is known
        }
        if (users.size() > 64 && !users.containsKey(c.owner)) {
            forgetIdleUsers();
        }
        User user = users.computeIfAbsent(c.owner, User::new);
        user.queues++;
        Queue q = new Queue(c, user, opened++);
        queues.put(id, q);
        return q;
    }

    /** Drops users with nothing ready here whose use has decayed to almost nothing (under a task's time). */
    private void forgetIdleUsers() {
        for (Iterator<User> it = users.values().iterator(); it.hasNext(); ) {
            User u = it.next();
            if (u.queues == 0 && u.usage.at(now) < FIRST_TASK_NANOS) {
                it.remove();
            }
        }
    }

    /** Recounts {@code q} after a change to its heap, which held {@code sizeBefore} entries before it. */
    private void changed(Queue q, int sizeBefore) {
        best = null;
        size += q.heap.size() - sizeBefore;
        int freshBefore = sizeBefore - q.held;
        q.held = q.heap.size() - q.heap.freshCount();
        fresh += q.heap.freshCount() - freshBefore;
        if (q.heap.isEmpty()) {
            queues.remove(q.computation.id);
            q.user.queues--;
            if (last == q) {
                last = null;
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
            double left = a.user.usage.at(now) / Math.max(1, weights.applyAsInt(a.user.name));
            double right = b.user.usage.at(now) / Math.max(1, weights.applyAsInt(b.user.name));
            if (left != right) {
                return left < right;
            }
            return a.since < b.since;
        }
        if (a.computation.priority != b.computation.priority) {
            return a.computation.priority > b.computation.priority;
        }
        double left = a.computation.usage.at(now);
        double right = b.computation.usage.at(now);
        if (left != right) {
            return left < right;
        }
        return a.since < b.since;
    }
}
