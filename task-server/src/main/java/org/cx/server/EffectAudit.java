package org.cx.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.cx.api.TaskId;

/**
 * Counts, per task id, how many completions arrived and how many had their effects applied. Tests check that no
 * task's effects were applied more than once. Costs a map entry per task: off unless asked for.
 */
public final class EffectAudit {
    private final Map<TaskId, AtomicInteger> executed = new ConcurrentHashMap<>();
    private final Map<TaskId, AtomicInteger> applied = new ConcurrentHashMap<>();

    void executed(TaskId id) {
        executed.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    void applied(TaskId id) {
        applied.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Number of tasks whose effects were applied at least once. */
    public int appliedTasks() {
        return applied.size();
    }

    /** The largest number of times any one task's effects were applied (1 when all is well). */
    public int maxApplied() {
        return applied.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
    }

    /** All completions received, duplicates included. */
    public long executions() {
        return executed.values().stream().mapToLong(AtomicInteger::get).sum();
    }

    /** Tasks that were reported complete more than once. */
    public long tasksExecutedMoreThanOnce() {
        return executed.values().stream().filter(n -> n.get() > 1).count();
    }
}
