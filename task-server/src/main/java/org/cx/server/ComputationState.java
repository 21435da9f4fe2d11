package org.cx.server;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.cx.api.TaskId;

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
    long tasksCompleted;
    long executions;
    long t1Nanos;
    /** Neighbouring servers this one sent tasks of this computation to, or received some from. */
    final Set<Integer> seeded = new HashSet<>(4);

    ComputationState(long id, long submittedNanos, ConsumerHandle consumer) {
        this.id = id;
        this.submittedNanos = submittedNanos;
        this.consumer = consumer;
    }

    ComputationSummary summary() {
        return new ComputationSummary(tasksCompleted, executions, t1Nanos, finishedNanos - submittedNanos);
    }
}
