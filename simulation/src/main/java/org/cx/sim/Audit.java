package org.cx.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.api.TaskId;

/**
 * What the run's checks need from the servers as they go: which server committed which task's completion, and
 * when each failed server's tasks were taken over. Violations found on the way are kept in order.
 */
final class Audit {
    private record Commit(String server, long nanos) {
    }

    private final Map<TaskId, Commit> committed = new HashMap<>();
    private final Map<Long, Integer> appliedPerComputation = new HashMap<>();
    private final java.util.Set<TaskId> applied = new java.util.HashSet<>();
    private final Map<Integer, Long> adoptedAt = new HashMap<>();
    final List<String> violations = new ArrayList<>();

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

    void adopted(int failed, long nanos) {
        adoptedAt.putIfAbsent(failed, nanos);
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
