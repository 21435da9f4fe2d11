package org.cx.server;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.cx.api.TaskId;
import org.cx.wire.RoutedPayload;

/** One computation on this server. Owned by the scheduler thread. */
final class ComputationState {
    enum Phase { RUNNING, DONE, FAILED }

    final long id;
    final long submittedNanos;
    /** The server that delivers this computation's result: where it was submitted. */
    int origin;
    /** The hash of the code bundle its tasks run from; {@code CodeBundle.CLASS_PATH} for none. */
    String bundle = "";
    final Map<TaskId, TaskEntry> tasks = new HashMap<>();
    ConsumerHandle consumer;
    Phase phase = Phase.RUNNING;
    /** Result or failure kept for the consumer until collected or expired. */
    byte[] result;
    String failedTask;
    String failure;
    long finishedNanos;
    /** Counted here, or by servers that passed their counts on to this one (see {@link #untold}). */
    long tasksCompleted;
    long executions;
    long t1Nanos;
    /** The part of the counts above already passed on to another server. */
    private long toldTasks;
    private long toldExecutions;
    private long toldNanos;
    /** Neighbouring servers this one sent tasks of this computation to, or received some from. */
    final Set<Integer> seeded = new HashSet<>(4);

    ComputationState(long id, long submittedNanos, ConsumerHandle consumer) {
        this.id = id;
        this.submittedNanos = submittedNanos;
        this.consumer = consumer;
    }

    /** The counts not passed on yet, now marked as passed on: they go with a value or transfer to another server. */
    RoutedPayload.Tally untold() {
        RoutedPayload.Tally t = new RoutedPayload.Tally(tasksCompleted - toldTasks, executions - toldExecutions,
                t1Nanos - toldNanos);
        toldTasks = tasksCompleted;
        toldExecutions = executions;
        toldNanos = t1Nanos;
        return t;
    }

    /** Counts another server passed on. */
    void add(RoutedPayload.Tally t) {
        tasksCompleted += t.tasks();
        executions += t.executions();
        t1Nanos += t.execNanos();
    }

    ComputationSummary summary() {
        return new ComputationSummary(tasksCompleted, executions, t1Nanos, finishedNanos - submittedNanos);
    }
}
