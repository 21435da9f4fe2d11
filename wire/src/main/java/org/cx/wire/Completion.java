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
 */
public record Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos) {
}
