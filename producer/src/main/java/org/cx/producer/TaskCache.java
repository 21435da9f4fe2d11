package org.cx.producer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.cx.api.TaskId;
import org.cx.wire.ReadyTask;

/**
 * The producer's task cache: ready tasks, still encoded, handed to workers. Computations take turns (the server
 * chose how many tasks of each to send here, by its users' shares and their priorities), and within one computation
 * the highest {@link org.cx.api.Task#priority() priority} goes first (as read when it was stored): an application's
 * priorities order its own tasks, never another's. Task code is decoded only where it runs. Shared by the
 * connection's event loop (adds, drops) and the workers (takes), under one lock.
 */
public final class TaskCache {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    private final Turns ready = new Turns();
    private final Map<TaskId, ReadyTask> byId = new HashMap<>();
    private int idleWorkers;
    private boolean closed;
    /** How many times the cache was cleared: which connection its tasks came under. */
    private int connection;
    private long idleSinceNanos;
    private long idleNanosTotal;
    private final Runnable onStarving;

    /** @param onStarving called when a worker starts waiting on an empty cache (the producer asks for work) */
    public TaskCache(Runnable onStarving) {
        this.onStarving = onStarving;
    }

    private static int order(ReadyTask a, ReadyTask b) {
        return Long.compare(b.task().priority(), a.task().priority());
    }

    /** Cached tasks by computation, highest priority first in each; computations take turns. */
    private static final class Turns {
        private final Map<Long, PriorityQueue<ReadyTask>> byComputation = new HashMap<>();
        /** Computations with cached tasks, the next to take a task first. */
        private final ArrayDeque<Long> turns = new ArrayDeque<>();
        private int size;

        void add(ReadyTask t) {
            long computation = t.task().id().computation();
            PriorityQueue<ReadyTask> q = byComputation.get(computation);
            if (q == null) {
                q = new PriorityQueue<>(TaskCache::order);
                byComputation.put(computation, q);
                turns.addLast(computation);
            }
            q.add(t);
            size++;
        }

        void remove(ReadyTask t) {
            long computation = t.task().id().computation();
            PriorityQueue<ReadyTask> q = byComputation.get(computation);
            if (q != null && q.remove(t)) {
                size--;
                if (q.isEmpty()) {
                    byComputation.remove(computation);
                    turns.remove(computation);
                }
            }
        }

        ReadyTask poll() {
            Long computation = turns.pollFirst();
            if (computation == null) {
                return null;
            }
            PriorityQueue<ReadyTask> q = byComputation.get(computation);
            ReadyTask t = q.poll();
            size--;
            if (q.isEmpty()) {
                byComputation.remove(computation);
            } else {
                turns.addLast(computation);
            }
            return t;
        }

        boolean isEmpty() {
            return size == 0;
        }

        int size() {
            return size;
        }

        void clear() {
            byComputation.clear();
            turns.clear();
            size = 0;
        }
    }

    public void add(List<ReadyTask> tasks) {
        lock.lock();
        try {
            for (ReadyTask t : tasks) {
                if (byId.putIfAbsent(t.task().id(), t) == null) {
                    ready.add(t);
                }
            }
            available.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Removes tasks that have not started; returns the ids actually removed. */
    public List<TaskId> drop(TaskId[] ids) {
        lock.lock();
        try {
            List<TaskId> removed = new ArrayList<>();
            for (TaskId id : ids) {
                ReadyTask t = byId.remove(id);
                if (t != null) {
                    ready.remove(t);
                    removed.add(id);
                }
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** Removes every cached task; returns their ids. */
    public List<TaskId> takeAll() {
        lock.lock();
        try {
            List<TaskId> ids = new ArrayList<>(byId.keySet());
            ready.clear();
            byId.clear();
            return ids;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the workers that wait for a task, so that they ask {@code stillWanted} again. */
    public void wakeAll() {
        lock.lock();
        try {
            available.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Removes every cached task of a computation. */
    public int dropComputation(long computation) {
        lock.lock();
        try {
            List<TaskId> ids = new ArrayList<>();
            for (TaskId id : byId.keySet()) {
                if (id.computation() == computation) {
                    ids.add(id);
                }
            }
            return drop(ids.toArray(TaskId[]::new)).size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes everything (the connection is gone), and starts a new {@link #connection}: a task taken before
     * this call is one of the server the producer has left.
     */
    public void clear() {
        lock.lock();
        try {
            connection++;
            ready.clear();
            byId.clear();
        } finally {
            lock.unlock();
        }
    }

    /** A task taken from the cache, and the {@link #connection} it came under. */
    public record Taken(ReadyTask task, int connection) {
    }

    /**
     * Takes the best cached task, waiting up to {@code timeoutNanos}; null on timeout or close. While waiting the
     * worker counts as idle.
     */
    public ReadyTask take(long timeoutNanos) throws InterruptedException {
        Taken taken = takeUnder(timeoutNanos);
        return taken == null ? null : taken.task();
    }

    /**
     * Like {@link #take(long)}, with the connection the task came under, read at the moment it is taken: a worker
     * that waits across a failover gets the new server's task and the new connection, never an old pair.
     */
    public Taken takeUnder(long timeoutNanos) throws InterruptedException {
        return takeUnder(timeoutNanos, () -> true);
    }

    /**
     * Like {@link #takeUnder(long)}, while {@code stillWanted} holds: it is asked before each wait and after each
     * {@link #wakeAll}, and a worker no longer wanted gets null.
     */
    public Taken takeUnder(long timeoutNanos, java.util.function.BooleanSupplier stillWanted)
            throws InterruptedException {
        lock.lock();
        try {
            long remaining = timeoutNanos;
            while (ready.isEmpty() || !stillWanted.getAsBoolean()) {
                if (closed || remaining <= 0 || !stillWanted.getAsBoolean()) {
                    return null;
                }
                if (idleWorkers++ == 0) {
                    idleSinceNanos = System.nanoTime();
                }
                onStarving.run();
                try {
                    remaining = available.awaitNanos(remaining);
                } finally {
                    if (--idleWorkers == 0) {
                        idleNanosTotal += System.nanoTime() - idleSinceNanos;
                    }
                }
            }
            ReadyTask t = ready.poll();
            byId.remove(t.task().id());
            return new Taken(t, connection);
        } finally {
            lock.unlock();
        }
    }

    public ReadyTask take() throws InterruptedException {
        return take(TimeUnit.DAYS.toNanos(1));
    }

    /** The current connection: it changes with every {@link #clear}. */
    public int connection() {
        lock.lock();
        try {
            return connection;
        } finally {
            lock.unlock();
        }
    }

    public void close() {
        lock.lock();
        try {
            closed = true;
            available.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return ready.size();
        } finally {
            lock.unlock();
        }
    }

    /** Time during which at least one worker waited on an empty cache, since start. */
    public long idleNanos() {
        lock.lock();
        try {
            return idleNanosTotal + (idleWorkers > 0 ? System.nanoTime() - idleSinceNanos : 0);
        } finally {
            lock.unlock();
        }
    }

    public int idleWorkers() {
        lock.lock();
        try {
            return idleWorkers;
        } finally {
            lock.unlock();
        }
    }

    /** Workers idle and with nothing cached: the ones the server may give a duplicate to. */
    public int starvingWorkers() {
        lock.lock();
        try {
            return Math.max(0, idleWorkers - ready.size());
        } finally {
            lock.unlock();
        }
    }
}
