package org.cx.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Eager scheduling's bookkeeping, with the time passed in: which ready tasks are known to be running, since when, and
 * when one counts as late. A late task gets one copy per lateness period for an idle worker that does not hold it
 * (the copy restarts its clock), so duplicates chase stragglers and hung producers and are not spent on tasks that are
 * merely long (docs/decisions/0001-steal-before-duplicating.md).
 *
 * <p>A task is late after twice the longest recent time of a task, as this server saw it: from known to be running
 * to its completion, so a task whose large values take long to arrive is measured by the same clock as the running
 * one. A task of a kind none of which has completed yet is late only after four times that: its kind is its level
 * in the spawn tree and whether it waits for inputs (a composition) or not, and in a divide and conquer the
 * compositions nearer the root are larger than any before them (a merge sort's merges double at each level up).
 * A completion counts at most its own lateness, so a producer frozen and resumed does not make every later task
 * wait longer before it is copied.
 */
final class LateTasks {
    /** Floor of {@link #latenessNanos}: 50 ms, far above a loopback round trip or a scheduling hiccup. */
    static final long MIN_LATENESS_NANOS = 50_000_000L;

    /**
     * Ready tasks known to be running somewhere, in the order they became so: ordered by
     * {@link TaskEntry#runningSinceNanos}, so the walk for late ones stops at the first that started too recently.
     */
    private final LinkedHashSet<TaskEntry> running = new LinkedHashSet<>();
    /**
     * The longest time among recently completed tasks (a maximum that decays by 1/1024 per completion). A maximum,
     * not an average: DAGs mix long and short tasks (F(n)'s 1 ms decompositions and 91 ms leaves), and an average
     * would call every long task late.
     */
    private long recentMax;
    /** The kinds ({@link #kind}) of which a task has completed. */
    private final java.util.BitSet kindsCompleted = new java.util.BitSet();

    /** {@code e} is known to be running since {@code nowNanos}, unless it was known to be running before. */
    void started(TaskEntry e, long nowNanos) {
        if (e.runningSinceNanos == Long.MAX_VALUE) {
            e.runningSinceNanos = nowNanos;
            running.add(e);
        }
        e.firstRunNanos = Math.min(e.firstRunNanos, nowNanos);
    }

    /** {@code e} has no holder any more: it is not running anywhere we know of. */
    void stopped(TaskEntry e) {
        e.runningSinceNanos = Long.MAX_VALUE;
        running.remove(e);
    }

    /** {@code e} completed or its computation ended. */
    void gone(TaskEntry e) {
        running.remove(e);
    }

    /**
     * {@code e}'s completion, which ran for {@code execNanos} on its producer, was applied at {@code nowNanos}: it
     * counts as the time since it was known to be running (if it was), at most its lateness, at least
     * {@code execNanos}.
     */
    void completed(TaskEntry e, long execNanos, long nowNanos) {
        long sample = execNanos;
        if (e.runningSinceNanos != Long.MAX_VALUE) {
            sample = Math.max(execNanos, Math.min(nowNanos - e.runningSinceNanos, latenessNanos(e)));
        }
        recentMax = Math.max(sample, recentMax - recentMax / 1024);
        kindsCompleted.set(kind(e));
    }

    /** Its level in the spawn tree, and whether it waits for inputs, as one index. */
    private static int kind(TaskEntry e) {
        return 2 * e.envelope.id().level() + (e.arity() > 0 ? 1 : 0);
    }

    /**
     * When running task {@code e} counts as late: after twice the longest recent time, or four times that if no task
     * of its kind completed yet; at least {@link #MIN_LATENESS_NANOS}. Generous on purpose: a task handed to a worker
     * may still wait behind one its producer claimed, and a duplicate of a task that was merely long ties up a worker
     * that new tasks will need.
     */
    long latenessNanos(TaskEntry e) {
        return kindsCompleted.get(kind(e)) ? Math.max(2 * recentMax, MIN_LATENESS_NANOS) : latenessOfANewKind();
    }

    /** When a running task of a kind none of which has completed yet counts as late. */
    long latenessOfANewKind() {
        return Math.max(4 * recentMax, MIN_LATENESS_NANOS);
    }

    /** Whether any task is late at {@code nowNanos}; walks only the tasks running longer than the floor. */
    boolean anyLate(long nowNanos) {
        for (TaskEntry e : running) {
            if (e.runningSinceNanos > nowNanos - MIN_LATENESS_NANOS) {
                return false;
            }
            if (e.runningSinceNanos <= nowNanos - latenessNanos(e)) {
                return true;
            }
        }
        return false;
    }

    /** The late task running longest at {@code nowNanos} that {@code p} holds no copy of; null if none. */
    TaskEntry lateFor(ProducerState p, long nowNanos) {
        for (TaskEntry e : running) {
            if (e.runningSinceNanos > nowNanos - MIN_LATENESS_NANOS) {
                return null;
            }
            if (e.runningSinceNanos <= nowNanos - latenessNanos(e) && !e.heldBy(p)
                    && e.holderCount() < UserQuotas.MAX_RUNNING_COPIES) {
                return e;
            }
        }
        return null;
    }

    /** Running tasks first started before {@code beforeNanos}: those over the time limit. */
    List<TaskEntry> runningSince(long beforeNanos) {
        List<TaskEntry> over = new ArrayList<>();
        for (TaskEntry e : running) {
            if (e.firstRunNanos < beforeNanos) {
                over.add(e);
            }
        }
        return over;
    }

    /** A copy of {@code late} was handed out at {@code nowNanos}: it is late again only if the copy is late too. */
    void copied(TaskEntry late, long nowNanos) {
        running.remove(late);
        late.runningSinceNanos = nowNanos;
        running.add(late);
    }

    /** Tasks known to be running. */
    int size() {
        return running.size();
    }
}
