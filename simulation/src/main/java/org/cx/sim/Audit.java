package org.cx.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.api.TaskId;
import org.cx.server.NetworkConfig;

/**
 * What the run's checks need from the servers and producers as they go: which server committed which task's
 * completion, when each failed server's tasks were taken over, and which producer started which task when.
 * Violations found on the way are kept in order.
 */
final class Audit {
    /**
     * How long after a task's commit a producer may still start a copy of it: the server's drop of that copy is on
     * its way (message delays are at most 50 ms).
     */
    private static final long RUN_AFTER_COMMIT_NANOS = 100_000_000L;
    /**
     * Until this long after a server is frozen, its producers may still run what they cached of its tasks, while the
     * server that took its place has committed them; a frozen producer, woken, runs what it held, committed by others
     * meanwhile: that is the freeze's cost, not a bug.
     */
    private static final long AFTER_FREEZE_NANOS = 1_000_000_000L;
    /**
     * How long a server cut off from the primary root goes on serving its producers: until it stops by itself two
     * failure timeouts (1 s each here) after the root last answered, seen at its next heartbeat (every 100 ms).
     * Meanwhile its heir has its tasks, and its producers run copies that others commit: the cut's cost.
     */
    private static final long CUT_OFF_NANOS = NetworkConfig.defaults().failTimeout().toNanos() * 2
            + NetworkConfig.defaults().heartbeat().toNanos();

    private record Commit(String server, long nanos) {
    }

    private record Run(TaskId task, String producer, long nanos) {
    }

    /** A freeze of a server ({@code producer} null: it excuses every producer's runs) or of a producer. */
    private record Freeze(String producer, long from, long until) {
    }

    /** When a server was cut from some others, and until when one of them could still serve as cut off. */
    private record Cut(long from, long until) {
    }

    private final Map<TaskId, Commit> committed = new HashMap<>();
    private final Map<Long, Integer> appliedPerComputation = new HashMap<>();
    private final java.util.Set<TaskId> applied = new java.util.HashSet<>();
    private final Map<Integer, Long> adoptedAt = new HashMap<>();
    final List<String> violations = new ArrayList<>();
    private final List<Run> lateRuns = new ArrayList<>();
    private final List<Freeze> freezes = new ArrayList<>();
    private final List<Cut> cuts = new ArrayList<>();
    /** When each cancelled computation was cancelled (its consumer heard so), and every run of its tasks. */
    private final Map<Long, Long> cancelledAt = new HashMap<>();
    private final List<Run> allRuns = new ArrayList<>();
    /**
     * How long after its consumer heard a computation was cancelled a producer may still start one of its tasks: the
     * word reaches every server and producer within this (the limit, 1 s).
     */
    private static final long AFTER_CANCEL_NANOS = 1_000_000_000L;

    /** {@code server} applied {@code task}'s completion at {@code appliedNanos}; its mirrors had it at {@code nanos}. */
    void committed(SimServer server, int serverId, TaskId task, long appliedNanos, long nanos) {
        Commit first = committed.putIfAbsent(task, new Commit(server.name, nanos));
        if (first != null) {
            violations.add("task " + task + " committed twice: on " + first.server() + " at " + ms(first.nanos())
                    + " and on " + server.name + " at " + ms(nanos));
        }
        Long replaced = adoptedAt.get(serverId);
        if (replaced != null && appliedNanos >= replaced) {
            violations.add(server.name + " (server " + serverId + ") applied " + task + " at " + ms(appliedNanos)
                    + ", after its tasks were taken over at " + ms(replaced) + ", and its mirrors took it at "
                    + ms(nanos));
        }
    }

    /**
     * {@code producer} starts running {@code task} at {@code nanos}, in a chain of runs (claims, children it cached)
     * that began with an assignment that reached it at {@code origin}. A chain the server began after the commit (its
     * assignment was on its way) may run the task again; one begun before should have heard of the commit.
     */
    void ran(TaskId task, String producer, long nanos, long origin) {
        allRuns.add(new Run(task, producer, nanos));
        Commit c = committed.get(task);
        if (c != null && nanos > c.nanos() + RUN_AFTER_COMMIT_NANOS && origin <= c.nanos()) {
            lateRuns.add(new Run(task, producer, nanos));
        }
    }

    /** A server ({@code producer} null) or a producer is frozen from {@code nanos} until {@code until}. */
    void frozen(String producer, long nanos, long until) {
        freezes.add(new Freeze(producer, nanos, until));
    }

    /**
     * A server is cut from some others from {@code nanos} until {@code heal}: one of them (the server, or the root it
     * was cut from) may serve as cut off until it stops by itself or, once healed, hears it was declared failed.
     */
    void cut(long nanos, long heal) {
        cuts.add(new Cut(nanos, Math.min(heal, nanos + CUT_OFF_NANOS) + RUN_AFTER_COMMIT_NANOS));
    }

    /** The consumer heard that {@code computation} was cancelled, at {@code nanos}. */
    void cancelled(long computation, long nanos) {
        cancelledAt.putIfAbsent(computation, nanos);
    }

    boolean wasCancelled(long computation) {
        return cancelledAt.containsKey(computation);
    }

    /**
     * A task must not run again well after its completion was committed, nor a cancelled computation's task well
     * after the cancellation, unless a freeze or a cut explains it.
     */
    void checkRuns() {
        for (Run r : lateRuns) {
            long commit = committed.get(r.task()).nanos();
            if (!excused(r, commit)) {
                violations.add(r.producer() + " ran " + r.task() + " at " + ms(r.nanos()) + ", "
                        + ms(r.nanos() - commit) + " after its completion was committed on "
                        + committed.get(r.task()).server());
            }
        }
        Map<Long, List<Run>> afterCancel = new java.util.LinkedHashMap<>();
        for (Run r : allRuns) {
            Long cancel = cancelledAt.get(r.task().computation());
            if (cancel != null && r.nanos() > cancel + AFTER_CANCEL_NANOS && !excused(r, cancel)) {
                afterCancel.computeIfAbsent(r.task().computation(), c -> new ArrayList<>()).add(r);
            }
        }
        afterCancel.forEach((computation, runs) -> {
            Run r = runs.get(0);
            violations.add(runs.size() + " tasks of cancelled computation " + Long.toHexString(computation)
                    + " started more than " + ms(AFTER_CANCEL_NANOS) + " after it was cancelled at "
                    + ms(cancelledAt.get(computation)) + ", the first " + r.task() + " on " + r.producer() + " at "
                    + ms(r.nanos()));
        });
    }

    /** Whether a freeze or a cut explains run {@code r}, of a task that was over at {@code since}. */
    private boolean excused(Run r, long since) {
        return freezes.stream().anyMatch(f -> (f.producer() == null || f.producer().equals(r.producer()))
                && f.from() <= r.nanos() && since <= f.until() + AFTER_FREEZE_NANOS)
                || cuts.stream().anyMatch(c -> c.from() <= r.nanos() && r.nanos() <= c.until());
    }

    void adopted(int failed, long nanos) {
        adoptedAt.putIfAbsent(failed, nanos);
    }

    /** When server {@code id}'s tasks were taken over, or null if they were not. */
    Long adoptedAt(int id) {
        return adoptedAt.get(id);
    }

    /** A server applied {@code task}'s completion (which may or may not reach its mirrors). */
    void applied(TaskId task) {
        if (applied.add(task)) {
            appliedPerComputation.merge(task.computation(), 1, Integer::sum);
        }
    }

    /** Distinct tasks of {@code computation} whose completion some server applied. */
    int appliedTasks(long computation) {
        return appliedPerComputation.getOrDefault(computation, 0);
    }

    static String ms(long nanos) {
        return String.format("%.3f ms", nanos / 1e6);
    }
}
