package org.cx.server;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.cx.api.TaskId;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;

/** One computation on this server. Owned by the scheduler thread. */
final class ComputationState {
    enum Phase { RUNNING, DONE, FAILED }

    final long id;
    final long submittedNanos;
    /** The name of the user who submitted it (empty on a plain network): only that user sees and collects it. */
    String owner = "";
    /** Producers of different owners that must return equal effects before a task's apply (1: no validation). */
    int quorum = 1;
    /** Its rank among its user's computations ({@link ReadyQueues}). */
    int priority;
    /** How long it may run from its submission before it fails; 0: no limit. */
    long timeoutNanos;
    /** Its use of this server's producers, decayed ({@link ReadyQueues}). */
    final ReadyQueues.Usage usage = new ReadyQueues.Usage();
    /** Its tasks last counted against its owner's quota ({@link UserQuotas#tasks()}). */
    long countedTasks;
    /** Bytes of application data its tasks hold on this server ({@link TaskEntry#bytes}), kept up to date. */
    long storedBytes;
    /** Its bytes last counted against its owner's quota ({@link UserQuotas#bytes()}). */
    long countedBytes;
    /** When its consumer went away without collecting it (at its origin), or -1 while one waits for it. */
    long abandonedSince = -1;
    /** The server that delivers this computation's result: where it was submitted. */
    int origin;
    /** The hash of the code bundle its tasks run from; {@code CodeBundle.CLASS_PATH} for none. */
    String bundle = "";
    /** Its tasks stored here and not completed; entries leave only through {@link #forget}. */
    final Map<TaskId, TaskEntry> tasks = new HashMap<>();
    /** The consumer its result goes to, and which says when it has it; null while none is attached. */
    ConsumerHandle consumer;
    /** Consumers waiting for its outcome without collecting it ({@code cx job wait}). */
    final Set<ConsumerHandle> watchers = new HashSet<>(2);
    Phase phase = Phase.RUNNING;
    /** Result or failure kept for the consumer until collected or expired. */
    byte[] result;
    String failedTask;
    String failure;
    long finishedNanos;
    /** Tasks of it completed at this server (its status, and whether it is still young here). */
    long completedHere;
    /**
     * Its counts that reached this server: tasks completed, executions and their execution time, here or at servers
     * that passed their counts on to this one ({@link RoutedPayload.Tally}). The counts this server holds are these
     * less what it passed on in turn (the told counts); they move as units, so each is held at one server at a time
     * and, by the end, at the origin.
     */
    private long tasksDone;
    private long executions;
    private long execNanos;
    /** This server has reported that the computation went over its task time ({@link UserQuotas#computationTime}). */
    boolean overTimeReported;
    private long toldTasks;
    private long toldExecutions;
    private long toldNanos;
    /** The part of the counts that reached this server already recorded for the mirrors ({@link MirrorOp.Tally}). */
    private long loggedTasks;
    private long loggedExecutions;
    private long loggedNanos;
    /** Neighbouring servers this one sent tasks of this computation to, or received some from. */
    final Set<Integer> seeded = new HashSet<>(4);

    ComputationState(long id, long submittedNanos, ConsumerHandle consumer) {
        this.id = id;
        this.submittedNanos = submittedNanos;
        this.consumer = consumer;
    }

    /** Stores {@code e}, linking it to its successor if that is here; false if its task is here already. */
    boolean add(TaskEntry e) {
        if (tasks.putIfAbsent(e.envelope.id(), e) != null) {
            return false;
        }
        org.cx.api.Continuation to = e.envelope.continuation();
        if (!to.isConsumer() && to.target().computation() == id) {
            e.successor = tasks.get(to.target());
        }
        return true;
    }

    /** Takes {@code e} out of this server's tasks. */
    void forget(TaskEntry e) {
        tasks.remove(e.envelope.id());
        e.gone = true;
    }

    /** Takes every task out. */
    void forgetAll() {
        tasks.values().forEach(e -> e.gone = true);
        tasks.clear();
    }

    /** The entry of the task {@code to} names, if it is here: through {@code from}'s link when that is it. */
    TaskEntry target(TaskId to, TaskEntry from) {
        TaskEntry linked = from == null ? null : from.successor;
        if (linked != null && !linked.gone && linked.envelope.id().equals(to)) {
            return linked;
        }
        return to.computation() == id ? tasks.get(to) : null;
    }

    /** The mean execution time of its tasks counted here, or {@code otherwise} before any. */
    long meanTaskNanos(long otherwise) {
        return tasksDone == 0 ? otherwise : Math.max(1, execNanos / tasksDone);
    }

    /** A producer ran one of its tasks (perhaps a duplicate). */
    void executed() {
        executions++;
    }

    /**
     * The execution time of the counts this server holds: its own completions' and those other servers passed on to
     * it, less what it passed on in turn. Counts move between servers with the values they route, and may come back
     * through a server many times: all that ever reached it would count them again each time. Each count is held at
     * one server at a time, so this never exceeds the computation's time in all, and by the end the origin holds all.
     */
    long taskTimeNanos() {
        return execNanos - toldNanos;
    }

    /** One of its tasks completed here, after running for {@code nanos}. */
    void completed(long nanos) {
        completedHere++;
        tasksDone++;
        execNanos += nanos;
    }

    /** The counts this server holds, now marked as passed on: they go with a value or transfer to another server. */
    RoutedPayload.Tally untold() {
        RoutedPayload.Tally t = new RoutedPayload.Tally(tasksDone - toldTasks, executions - toldExecutions,
                execNanos - toldNanos);
        toldTasks = tasksDone;
        toldExecutions = executions;
        toldNanos = execNanos;
        return t;
    }

    /** Counts another server passed on (or the untold counts of a failed server this one took over). */
    void add(RoutedPayload.Tally t) {
        tasksDone += t.tasks();
        executions += t.executions();
        execNanos += t.execNanos();
    }

    /**
     * For the mirrors: how the counts that reached this server grew since the last call, or null if they did not;
     * with {@code all} (a snapshot, which replaces a mirror's copy), the counts it holds.
     */
    MirrorOp.Tally logTally(boolean all) {
        long t = tasksDone - (all ? toldTasks : loggedTasks);
        long e = executions - (all ? toldExecutions : loggedExecutions);
        long n = execNanos - (all ? toldNanos : loggedNanos);
        loggedTasks = tasksDone;
        loggedExecutions = executions;
        loggedNanos = execNanos;
        return t == 0 && e == 0 && n == 0 ? null : new MirrorOp.Tally(id, new RoutedPayload.Tally(t, e, n));
    }

    /** A finished computation taken over from a failed origin: its summary as the origin recorded it. */
    void finishedWith(MirrorOp.Finished f) {
        tasksDone = f.tasks();
        executions = f.executions();
        execNanos = f.t1Nanos();
        toldTasks = 0;
        toldExecutions = 0;
        toldNanos = 0;
    }

    /** At the origin, once the computation is over: the whole network's counts. */
    ComputationSummary summary() {
        return new ComputationSummary(tasksDone - toldTasks, executions - toldExecutions, execNanos - toldNanos,
                finishedNanos - submittedNanos);
    }

    /**
     * Where it stands on this server at {@code nowNanos}: its tasks ready, running and waiting, and the inputs the
     * first {@code listed} waiting ones lack (oldest first).
     */
    org.cx.wire.Message.Diagnosis diagnosis(long nowNanos, int listed) {
        int ready = 0;
        int running = 0;
        java.util.List<TaskEntry> waiting = new java.util.ArrayList<>();
        for (TaskEntry e : tasks.values()) {
            if (!e.isReady()) {
                waiting.add(e);
            } else if (e.holderCount() > 0 || e.envelope.onServer() || e.heapIndex < 0) {
                running++; // held by producers, run here, or on its way to a worker
            } else {
                ready++;
            }
        }
        waiting.sort(java.util.Comparator.comparingLong(e -> e.seq));
        org.cx.wire.Message.WaitingTask[] lacking = waiting.stream().limit(listed)
                .map(e -> new org.cx.wire.Message.WaitingTask(e.envelope.id(), e.arity(), e.missingInputs()))
                .toArray(org.cx.wire.Message.WaitingTask[]::new);
        boolean stalled = phase == Phase.RUNNING && !waiting.isEmpty() && ready == 0 && running == 0;
        long elapsed = (phase == Phase.RUNNING ? nowNanos : finishedNanos) - submittedNanos;
        return new org.cx.wire.Message.Diagnosis(id, phase.name(), ready, running, waiting.size(), lacking, stalled,
                priority, tasksDone - toldTasks, Math.max(0, elapsed / 1_000_000), failure == null ? "" : failure);
    }
}
