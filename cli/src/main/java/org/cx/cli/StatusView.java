package org.cx.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * One view of a network as {@code cx status} shows it: what the servers, producers and computations said through
 * their MBeans, and the servers' recent membership changes (newest last), written as a table for people or as one
 * JSON object per view for programs. A figure a process did not give (it runs without JMX, or could not be read) is
 * null, and its {@code note} says why.
 */
record StatusView(long epoch, boolean tolerant, List<Server> servers, List<Producer> producers,
                  List<Computation> computations, List<String> events) {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Server(int position, String name, String address, String mirrors, String neighbours, Integer ready,
                  Integer unready, Integer running, Integer producers, Double donePerSecond, String note) {
    }

    record Producer(String name, String server, int workers, Integer cached, Long tasksRun, Double idlePercent,
                    int held, long completed, String note) {
    }

    record Computation(String id, String server, String phase, long done, long known, double elapsedSeconds,
                       boolean origin, String diagnosis) {
    }

    /** The view as one line of JSON. */
    String json() {
        try {
            return JSON.writeValueAsString(this) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The view as tables. */
    String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("CX network: %d server(s), %d producer(s), epoch %d, %s%n%n", servers.size(),
                producers.size(), epoch, org.cx.consumer.NetworkProbe.tolerance(servers.size(), tolerant)));
        b.append(String.format("%-4s %-16s %-22s %-10s %-14s %7s %7s %7s %9s %10s%n", "pos", "server", "address",
                "mirrors", "neighbours", "ready", "unready", "running", "producers", "done/s"));
        for (Server s : servers) {
            b.append(s.note() != null
                    ? String.format("%-4d %-16s %-22s (%s)%n", s.position(), s.name(), s.address(), s.note())
                    : String.format("%-4d %-16s %-22s %-10s %-14s %7d %7d %7d %9d %10.0f%n", s.position(), s.name(),
                            s.address(), s.mirrors(), s.neighbours(), s.ready(), s.unready(), s.running(),
                            s.producers(), s.donePerSecond()));
        }
        b.append('\n').append(String.format("%-20s %-16s %7s %7s %9s %7s %s%n", "producer", "server", "workers",
                "cached", "tasks-run", "idle", "(held, completed here)"));
        for (Producer p : producers) {
            String own = p.note() != null ? "(" + p.note() + ")"
                    : String.format("%7d %9d %6.1f%%", p.cached(), p.tasksRun(), p.idlePercent());
            b.append(String.format("%-20s %-16s %7d %s (%d, %d)%n", p.name(), p.server(), p.workers(), own, p.held(),
                    p.completed()));
        }
        b.append('\n').append(String.format("%-18s %-16s %-7s %9s %9s %9s%n", "computation", "server", "phase", "done",
                "known", "elapsed"));
        for (Computation c : computations) {
            b.append(String.format("%-18s %-16s %-7s %9d %9d %9.1f %s%n", c.id(), c.server(), c.phase(), c.done(),
                    c.known(), c.elapsedSeconds(), c.origin() ? "origin" : ""));
            if (c.diagnosis() != null) {
                b.append("  ").append(c.diagnosis().replace("\n", "\n  ")).append('\n');
            }
        }
        if (!events.isEmpty()) {
            b.append('\n').append("recent failures and repairs (UTC):\n");
            events.forEach(e -> b.append("  ").append(e).append('\n'));
        }
        return b.toString();
    }
}
