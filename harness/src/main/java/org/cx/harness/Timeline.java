package org.cx.harness;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cx.producer.IdleLog;
import org.cx.producer.Producer;
import org.cx.producer.TaskTimeline;
import org.cx.server.ServerTimeline;

/**
 * A run's timeline as Chrome trace events, for chrome://tracing or https://ui.perfetto.dev: one process per server,
 * one lane per producer worker, every task it ran as a span named after the task's class (with how long it had sat
 * in the producer's cache, or {@code claimed} if the worker took it without the server), and every wait for a task
 * as a span named {@code idle}; and on each server's own lane its scheduler's decisions as instants: a task stored
 * there (and how: submitted, spawned, transferred, adopted), assigned to a producer, revoked from one, or sent to
 * another server (taken from the ready heap) and transmitted (once its mirror group had recorded the send). Times are
 * microseconds from the start of the run. The idle spans are the intervals the run's idle figures add up
 * ({@link IdleLog}), so the picture shows where those figures come from.
 */
final class Timeline {

    private Timeline() {
    }

    /** Writes the run from {@code startNanos} to {@code endNanos} on {@code cluster} (recorded with timelines on). */
    static void write(Path file, LocalCluster cluster, long startNanos, long endNanos) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
            List<Map<String, Object>> events = events(cluster, startNanos, endNanos);
            for (int i = 0; i < events.size(); i++) {
                w.write(Json.compact(events.get(i)));
                w.write(i + 1 < events.size() ? ",\n" : "\n");
            }
            w.write("]}\n");
        }
    }

    /** Lane of server {@code s}'s scheduler: beyond any worker's lane. */
    private static final int SCHEDULER_LANE = 1_000_000;

    /** The events: names of servers and lanes, each server's decisions, then each producer's tasks and waits. */
    static List<Map<String, Object>> events(LocalCluster cluster, long startNanos, long endNanos) {
        List<Map<String, Object>> events = new ArrayList<>();
        Map<String, String> serverById = new HashMap<>();
        for (int s = 0; s < cluster.servers().size(); s++) {
            serverById.put(String.valueOf(cluster.servers().get(s).network().id()), "server " + s);
        }
        for (int s = 0; s < cluster.servers().size(); s++) {
            events.add(name("process_name", s, null, "server " + s));
            events.add(name("thread_name", s, SCHEDULER_LANE, "scheduler"));
            for (ServerTimeline.Event d : cluster.servers().get(s).timeline().between(startNanos, endNanos)) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("name", d.what());
                e.put("cat", "scheduler");
                e.put("ph", "i");
                e.put("s", "t");
                e.put("ts", micros(d.nanos() - startNanos));
                e.put("pid", s);
                e.put("tid", SCHEDULER_LANE);
                e.put("args", switch (d.what()) {
                    case "stored" -> Map.of("task", d.task().toString(), "how", d.how());
                    case "sent", "transmitted" -> Map.of("task", d.task().toString(), "to",
                            serverById.getOrDefault(d.how(), "network id " + d.how()));
                    default -> Map.of("task", d.task().toString(), "producer", d.how());
                });
                events.add(e);
            }
        }
        int lane = 0;
        List<Producer> producers = cluster.producers();
        for (int p = 0; p < producers.size(); p++) {
            Producer producer = producers.get(p);
            int server = cluster.serverOf(p);
            int first = lane;
            int workers = producer.idleLog().workers();
            for (int w = 0; w < workers; w++) {
                events.add(name("thread_name", server, first + w, producer.config().name() + " worker " + w));
                for (IdleLog.Interval wait : producer.idleLog().waits(w, startNanos, endNanos)) {
                    events.add(span("idle", "idle", server, first + w, wait.fromNanos() - startNanos,
                            wait.toNanos() - wait.fromNanos(), null));
                }
            }
            for (TaskTimeline.Span t : producer.timeline().between(startNanos, endNanos)) {
                Map<String, Object> args = new LinkedHashMap<>();
                args.put("task", t.task().toString());
                // How it reached the worker: claimed without the server, or from the cache after a wait there.
                args.put("cached_ms", t.cachedNanos() == TaskTimeline.CLAIMED ? "claimed"
                        : BigDecimal.valueOf(t.startNanos() - t.cachedNanos(), 6));
                events.add(span(t.kind(), "task", server, first + t.worker(), t.startNanos() - startNanos,
                        t.endNanos() - t.startNanos(), args));
            }
            lane += workers;
        }
        return events;
    }

    private static Map<String, Object> name(String what, int pid, Integer tid, String name) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", what);
        e.put("ph", "M");
        e.put("pid", pid);
        if (tid != null) {
            e.put("tid", tid);
        }
        e.put("args", Map.of("name", name));
        return e;
    }

    private static Map<String, Object> span(String name, String category, int pid, int tid, long fromNanos,
                                            long durationNanos, Map<String, Object> args) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("cat", category);
        e.put("ph", "X");
        e.put("ts", micros(fromNanos));
        e.put("dur", micros(durationNanos));
        e.put("pid", pid);
        e.put("tid", tid);
        if (args != null) {
            e.put("args", args);
        }
        return e;
    }

    /** Nanoseconds as microseconds, exactly (three decimals). */
    private static BigDecimal micros(long nanos) {
        return BigDecimal.valueOf(nanos, 3);
    }
}
