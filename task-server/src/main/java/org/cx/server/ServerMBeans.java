package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.cx.wire.Jmx;

/**
 * The MBeans of one task server: the server itself, and one per computation it holds (kept in step with the
 * scheduler once a second, which also samples the completion rate). Getters ask the event loop; the sync runs on it.
 */
final class ServerMBeans {
    private final TaskServerNode node;
    private final String serverKey;
    private ObjectName serverName;
    private final Map<Long, ObjectName> computations = new HashMap<>();
    private long lastCompleted;
    private long lastSampleNanos = System.nanoTime();
    private volatile double ratePerSecond;

    ServerMBeans(TaskServerNode node) {
        this.node = node;
        this.serverKey = ObjectName.quote(node.config().name() + "@" + node.port());
    }

    void register() {
        serverName = Jmx.register("org.cx:type=TaskServer,name=" + ObjectName.quote(node.config().name())
                + ",port=" + node.port(), new Server());
    }

    /** Once a second, on the event loop. */
    void sync(Scheduler scheduler) {
        long now = System.nanoTime();
        long completed = scheduler.counters().tasksCompleted();
        ratePerSecond = (completed - lastCompleted) / Math.max(1e-9, (now - lastSampleNanos) / 1e9);
        lastCompleted = completed;
        lastSampleNanos = now;
        Set<Long> live = scheduler.computationViews().stream().map(Scheduler.ComputationView::id)
                .collect(Collectors.toSet());
        computations.entrySet().removeIf(e -> {
            if (!live.contains(e.getKey())) {
                Jmx.unregister(e.getValue());
                return true;
            }
            return false;
        });
        for (long id : live) {
            computations.computeIfAbsent(id, k -> Jmx.register("org.cx:type=Computation,server=" + serverKey
                    + ",id=" + Long.toHexString(k), new Computation(k)));
        }
    }

    void unregisterAll() {
        Jmx.unregister(serverName);
        computations.values().forEach(Jmx::unregister);
        computations.clear();
    }

    private final class Server implements TaskServerMXBean {
        @Override
        public String getName() {
            return node.config().name();
        }

        @Override
        public String getAddress() {
            return node.advertisedAddress();
        }

        @Override
        public int getServerId() {
            return node.network().id();
        }

        @Override
        public int getPosition() {
            return node.network().position();
        }

        @Override
        public List<Integer> getNeighbours() {
            return node.query(() -> List.copyOf(node.networkInternals().neighbours()));
        }

        @Override
        public List<Integer> getMirrorGroup() {
            return node.network().mirrorGroup();
        }

        @Override
        public int getReadyTasks() {
            return node.query(() -> node.scheduler().readyCount());
        }

        @Override
        public int getUnreadyTasks() {
            return node.query(() -> node.scheduler().taskCount() - node.scheduler().readyCount());
        }

        @Override
        public int getRunningTasks() {
            return node.query(() -> node.scheduler().runningCount());
        }

        @Override
        public long getTasksCompleted() {
            return node.status().tasksCompleted();
        }

        @Override
        public double getTasksCompletedPerSecond() {
            return ratePerSecond;
        }

        @Override
        public int getProducers() {
            return node.status().producers();
        }

        @Override
        public List<ProducerRow> getProducerDetails() {
            return node.query(() -> {
                List<ProducerRow> rows = new ArrayList<>();
                for (ProducerState p : node.scheduler().producerStates()) {
                    rows.add(new ProducerRow(p.name(), p.workers(), p.heldCount(), p.tasksCompleted(),
                            node.producerJmx(p.peerId())));
                }
                return rows;
            });
        }

        @Override
        public int getComputations() {
            return node.status().computations();
        }

        @Override
        public int getBundlesHeld() {
            return node.status().bundlesHeld();
        }

        @Override
        public String[] getRecentEvents() {
            long nowMillis = System.currentTimeMillis();
            return node.query(() -> {
                long nowNanos = node.cycleNow();
                return node.networkInternals().recentEvents().stream()
                        .map(e -> java.time.Instant.ofEpochMilli(nowMillis - (nowNanos - e.atNanos()) / 1_000_000)
                                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + " " + e.what())
                        .toArray(String[]::new);
            });
        }
    }

    private final class Computation implements ComputationMXBean {
        private final long id;

        Computation(long id) {
            this.id = id;
        }

        private Scheduler.ComputationView view() {
            return node.query(() -> node.scheduler().computationView(id));
        }

        @Override
        public String getId() {
            return Long.toHexString(id);
        }

        @Override
        public boolean isOrigin() {
            Scheduler.ComputationView v = view();
            return v != null && v.origin();
        }

        @Override
        public long getTasksDone() {
            Scheduler.ComputationView v = view();
            return v == null ? 0 : v.done();
        }

        @Override
        public long getTasksKnown() {
            Scheduler.ComputationView v = view();
            return v == null ? 0 : v.done() + v.stored();
        }

        @Override
        public double getElapsedSeconds() {
            Scheduler.ComputationView v = view();
            return v == null ? 0 : (System.nanoTime() - v.sinceNanos()) / 1e9;
        }

        @Override
        public String getPhase() {
            Scheduler.ComputationView v = view();
            return v == null ? "GONE" : v.phase();
        }

        private org.cx.wire.Message.Diagnosis diagnosis() {
            return node.query(() -> node.scheduler().submissions().diagnose(id));
        }

        @Override
        public String cancel() {
            String refusal = node.cancelAsAdministrator(id);
            return refusal == null ? "computation " + getId() + " cancelled" : refusal;
        }

        @Override
        public String getDiagnosis() {
            org.cx.wire.Message.Diagnosis d = diagnosis();
            return d == null ? "computation " + getId() + " is gone from this server" : d.toApi().describe();
        }

        @Override
        public boolean isStalled() {
            org.cx.wire.Message.Diagnosis d = diagnosis();
            return d != null && d.stalled();
        }
    }
}
