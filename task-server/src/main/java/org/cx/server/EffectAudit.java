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
    /** Longest chain of applied effects ending at each task: 1 for a root. */
    private final Map<TaskId, Integer> depth = new ConcurrentHashMap<>();

    void executed(TaskId id) {
        executed.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    void applied(TaskId id) {
        applied.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    /** An applied effect of {@code from} (a spawn or a value) reached {@code to}: {@code to} runs after it. */
    void edge(TaskId from, TaskId to) {
        int d = depth.getOrDefault(from, 1) + 1;
        depth.merge(to, d, Math::max);
    }

    /** The longest chain of tasks linked by applied effects: the computation's critical path, in tasks. */
    public int criticalPath() {
        return depth.values().stream().mapToInt(Integer::intValue).max().orElse(applied.isEmpty() ? 0 : 1);
    }

    /** Completions received for one task. */
    public int executions(TaskId id) {
        AtomicInteger n = executed.get(id);
        return n == null ? 0 : n.get();
    }

    /** Forgets everything (between computations). */
    public void clear() {
        executed.clear();
        applied.clear();
        depth.clear();
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
