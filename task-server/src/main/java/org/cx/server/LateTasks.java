package org.cx.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Eager scheduling's bookkeeping, with the time passed in: which ready tasks are known to be running, since when, and
 * when one counts as late. A late task gets one copy per lateness period for an idle worker that does not hold it
 * (the copy restarts its clock), so duplicates chase stragglers and hung producers and are not spent on tasks that are
 * merely long (docs/decisions/0001-steal-before-duplicating.md).
 */
final class LateTasks {
    /** Floor of {@link #latenessNanos()}: 50 ms, far above a loopback round trip or a scheduling hiccup. */
    static final long MIN_LATENESS_NANOS = 50_000_000L;

    /**
     * Ready tasks known to be running somewhere, in the order they became so: ordered by
     * {@link TaskEntry#runningSinceNanos}, so the first one tells whether any task is late.
     */
    private final LinkedHashSet<TaskEntry> running = new LinkedHashSet<>();
    /**
     * The longest execution time among recently applied tasks (a maximum that decays by 1/1024 per completion). A
     * maximum, not an average: DAGs mix long and short tasks (F(n)'s 1 ms decompositions and 91 ms leaves), and an
     * average would call every long task late.
     */
    private long execNanosRecentMax;

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

    /** A completion that ran for {@code execNanos} was applied. */
    void completed(long execNanos) {
        execNanosRecentMax = Math.max(execNanos, execNanosRecentMax - execNanosRecentMax / 1024);
    }

    /**
     * When a running task counts as late: twice the longest recent execution time, and at least
     * {@link #MIN_LATENESS_NANOS}. Generous on purpose: a task handed to a worker may still wait behind one its
     * producer claimed, and a duplicate of a task that was merely long ties up a worker that new tasks will need.
     */
    long latenessNanos() {
        return Math.max(2 * execNanosRecentMax, MIN_LATENESS_NANOS);
    }

    /** Whether any task is late at {@code nowNanos}. O(1). */
    boolean anyLate(long nowNanos) {
        return !running.isEmpty() && running.iterator().next().runningSinceNanos <= nowNanos - latenessNanos();
    }

    /** The task late longest at {@code nowNanos} that {@code p} holds no copy of; null if none. */
    TaskEntry lateFor(ProducerState p, long nowNanos) {
        long lateBefore = nowNanos - latenessNanos();
        for (TaskEntry e : running) {
            if (e.runningSinceNanos > lateBefore) {
                return null;
            }
            if (!e.heldBy(p) && e.holderCount() < UserQuotas.MAX_RUNNING_COPIES) {
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
