package org.cx.wire;

import org.cx.api.TaskId;

/**
 * One execution of a task and all of its effects, applied atomically by the server if and only if it is the first
 * completion of that task.
 *
 * @param id        the task that ran
 * @param spawned   tasks it stored
 * @param values    values it stored
 * @param execNanos how long the execution took on the producer
 * @param claimed   index into {@code spawned} of a ready child the producer is already running itself, or -1
 */
public record Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos, int claimed) {

    /** The same completion, claiming spawned task {@code index}. */
    public Completion withClaim(int index) {
        if (index < -1 || index >= spawned.length) {
            throw new IllegalArgumentException("no spawned task " + index);
        }
        return new Completion(id, spawned, values, execNanos, index);
    }

    /** The index of the spawned task a producer should run next itself: the best ready one, or -1. */
    public int bestReadyChild() {
        int best = -1;
        for (int i = 0; i < spawned.length; i++) {
            TaskEnvelope e = spawned[i];
            if (e.arity() == 0 && !e.onServer() && (best < 0 || e.priority() > spawned[best].priority())) {
                best = i;
            }
        }
        return best;
    }
}
