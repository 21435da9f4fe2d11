package org.cx.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodecs;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskRunner;

/**
 * A task server without its transport or its threads: the scheduler, the server network, the code service and the
 * sessions of its peers, driven by one {@link DutyCycle}. Whatever carries it passes in an {@link Environment} (the
 * clock, the one alarm, links to other servers, where {@code executeOnServer} tasks run) and hands it each accepted
 * connection through {@link #accept}. {@link TaskServerNode} runs it on a Netty event loop; a simulation runs many
 * in one thread on a virtual clock.
 *
 * <p>Single-threaded: every method runs on the thread that owns the server (its event loop).
 *
 * <p>Just over 500 lines, one job: joining one server's parts and the few steps that need several of them (accepting a
 * peer, the duty cycle's work, what the network asks of the server); each part is a class of its own.
 */
public final class ServerCore {

    /** What a server needs from what carries it. */
    public interface Environment {
        /** The server's clock, in nanoseconds from an arbitrary origin. */
        long nanoTime();

        /**
         * Call {@link #alarm} with {@code dueNanos} at (or soon after) that time. The core asks only for an alarm
         * earlier than the one armed; an alarm it replaced may still ring (it is ignored), or be cancelled.
         */
        void armAlarm(long dueNanos);

        /** Opens links to other servers. */
        PeerLink.Opener links();

        /** Draws the ids of computations submitted here: a {@code SecureRandom} on a real server. */
        RandomGenerator computationIds();

        /** Runs {@code work} off the server's thread (an {@code executeOnServer} task). */
        void runAside(Runnable work);

        /** Runs {@code work} on the server's thread, after what runs now. */
        void runHere(Runnable work);

        /** Where the server keeps large values ({@link org.cx.wire.ValueRef}); null: all values inline. */
        default org.cx.wire.ValueStore values() {
            return null;
        }

        /** The network declared this server failed: stop accepting connections. */
        void evicted(String reason);

        /** Whether to call {@link #applied} and {@link #committed} (they cost a closure per completion). */
        default boolean audits() {
            return false;
        }

        /** For audits: the completion of {@code task} was applied here. */
        default void applied(TaskId task) {
        }

        /** For audits: the completion of {@code task}, applied here at {@code appliedNanos}, is now on every mirror. */
        default void committed(TaskId task, long appliedNanos) {
        }

        /** For audits: this server took over the tasks of failed server {@code failed}. */
        default void adopted(int failed) {
        }
    }

    /** The inbound side of one connection: what its transport reports. */
    public interface Inbound {
        void receive(Message message);

        /** A burst of messages was read. */
        void readComplete();

        /** The connection closed. */
        void closed();

        /** Reading failed: an I/O error closes quietly, anything else (bad input) refuses the peer. */
        void failed(Throwable cause);
    }

    private final ServerConfig config;
    private final Environment env;
    private final Scheduler scheduler;
    private final SessionOutbox outbox;
    private final EffectAudit audit;
    private final BodyCodecs codecs;
    private final CodeService code;
    private final AtomicLong peerIds = new AtomicLong();
    private final AtomicLong connectionsRefused = new AtomicLong();
    /** Every connection past its handshake, by peer id, in the order they arrived. */
    private final Map<Long, PeerSession> sessions = new LinkedHashMap<>();
    private final ServerNetwork network;
    private final CommitLog commitLog;
    /** Beside the commit log: every task stored here and how it came, sent away or received in a transfer. */
    private final CommitLog trailLog;
    private final ServerTimeline timeline;
    /** The server's clock and every piece of work not started by a message. */
    private final DutyCycle cycle;
    /** When the one alarm rings, or never. */
    private long alarmDueNanos = Long.MAX_VALUE;
    /** Where metered usage goes ({@link #meterUsage}); null: nowhere. */
    private UsageSink usageSink;
    /** Whether the duty that hands usage over runs. */
    private boolean metered;

    /**
     * @param address the address other servers and clients are told to use
     */
    public ServerCore(ServerConfig config, String address, Environment env) {
        this.config = config;
        this.env = env;
        this.codecs = new BodyCodecs(ServerCore.class.getClassLoader(), BodyCodecs.KEEP_UNUSED_BYTES, env.values());
        this.outbox = new SessionOutbox(this, config.maxFrameBytes(), env.values());
        this.cycle = new DutyCycle(env::nanoTime, this::wakeAt);
        this.audit = config.auditEffects() ? new EffectAudit() : null;
        this.commitLog = config.commitLog() == null ? null : new CommitLog(config.commitLog());
        this.trailLog = config.commitLog() == null ? null : new CommitLog(config.trail());
        this.timeline = new ServerTimeline(config.timeline());
        this.scheduler = new Scheduler(outbox, config.resultRetention().toNanos(), env.computationIds(), audit);
        this.code = new CodeService(codecs, new CodeService.Upstream() {
            @Override
            public int upstream() {
                return network.upstream();
            }

            @Override
            public void send(int server, Message message) {
                network.sendNow(server, message);
            }
        }, config.name(), config.tls(), () -> cycle.now());
        scheduler.quotas(config.quotas());
        scheduler.onDissent((opinion, task) -> org.slf4j.LoggerFactory.getLogger(ServerCore.class).warn(
                "producer {} (credential {}) returned a result of task {} that the quorum of other producers "
                        + "contradicted; if it keeps doing so, revoke its credential: cx keys revoke {}",
                opinion.producer(), opinion.owner(), task, opinion.owner()));
        this.network = new ServerNetwork(config, address, env.links(), cycle, scheduler, new NetworkHost());
    }

    /** Starts the network's protocols and the periodic duties. */
    public void start() {
        cycle.endOfBurstDoes(() -> {
            network.afterBurst();
            network.flush();
            outbox.tellReleases(); // those a server link's ValuesReleased made the store let go
            outbox.flush();
        });
        network.start();
        cycle.every(Math.min(TaskServerNode.SECOND_NANOS, config.resultRetention().toNanos()),
                () -> {
                    scheduler.submissions().expire(cycle.now());
                    code.expireUploads(cycle.now());
                });
        // Late tasks become eligible for a duplicate without any message arriving: look again now and then.
        // The same tick acknowledges the mirror batches nobody waited on.
        cycle.every(LateTasks.MIN_LATENESS_NANOS / 10, () -> {
            scheduler.tick(cycle.now());
            scheduler.dispatchWithEagerCopies();
            network.sendDeferredAcks();
        });
        if (env.values() != null) {
            scheduler.onForget(id -> {
                if (!network.mirrors(id)) {
                    env.values().drop(id);
                }
            });
            cycle.every(VALUE_SWEEP_NANOS, () -> env.values().sweep(VALUE_SWEEP_NANOS,
                    id -> scheduler.knows(id) || network.mirrors(id)));
        }
    }

    /**
     * Meters what producers' executions use: every second the usage is sealed as a batch, recorded for the mirrors,
     * and handed to {@code sink} once they have it; an acknowledgement is recorded too (on {@code loop}, the thread
     * of this core). A null sink stops metering. Call on the event loop, after {@link #start}.
     */
    public void meterUsage(java.util.function.LongSupplier wallMillis, UsageSink sink,
                           java.util.concurrent.Executor loop) {
        boolean first = !metered;
        usageSink = sink;
        metered = true;
        scheduler.meterUsage(sink == null ? null : wallMillis);
        if (first) {
            String prefix = config.name() + "/" + Long.toHexString(new java.util.Random().nextLong() >>> 16);
            cycle.every(TaskServerNode.SECOND_NANOS, () -> {
                UsageSink to = usageSink;
                if (to == null) {
                    return;
                }
                scheduler.replication().sealUsage(prefix, cycle.now()).forEach((id, rows) -> network.afterCommit(
                        () -> to.send(id, java.util.List.of(rows),
                                () -> loop.execute(() -> scheduler.replication().usageAcknowledged(id)))));
            });
        }
    }

    /** How often, and after how long unknown here, the values of computations no longer here are let go. */
    private static final long VALUE_SWEEP_NANOS = 30 * TaskServerNode.SECOND_NANOS;

    /** The duty cycle wants to run at {@code dueNanos}: arm the one alarm, unless it already rings earlier. */
    private void wakeAt(long dueNanos) {
        if (dueNanos < alarmDueNanos) {
            alarmDueNanos = dueNanos;
            env.armAlarm(dueNanos);
        }
    }

    /**
     * The alarm armed for {@code dueNanos} through {@link Environment#armAlarm} rang: one duty cycle, then the next
     * alarm. One that an earlier alarm replaced does nothing.
     */
    public void alarm(long dueNanos) {
        if (dueNanos != alarmDueNanos) {
            return;
        }
        alarmDueNanos = Long.MAX_VALUE;
        cycle.doWork();
        long next = cycle.nextDueNanos();
        if (next != Long.MAX_VALUE) {
            wakeAt(next);
        }
    }

    /** A new connection: its first message must be a {@code Hello} (see {@link Handshake}). */
    public Inbound accept(PeerConnection connection) {
        return new Handshake(this, connection);
    }

    /** Says the whole network is closing: no repairs on the way down. */
    public void shutDownNetwork() {
        network.shutDown();
    }

    /** Closes the links to other servers. */
    public void close() {
        network.close();
    }

    public ServerConfig config() {
        return config;
    }

    /** The effect audit, if {@link ServerConfig#auditEffects()} is on. */
    public EffectAudit audit() {
        return audit;
    }

    /** This server's id in the network: 0 until it has joined. */
    public int id() {
        return network.self();
    }

    /** Where this server stands in the production network. */
    public TaskServerNode.NetworkView networkView() {
        return new TaskServerNode.NetworkView(network.self(), network.position(), network.epoch(), network.size(),
                network.mirrorGroup(), List.copyOf(network.replicasHeld()));
    }

    /** Whether every server's state has a copy on another live server, as this server sees the network. */
    public boolean tolerant() {
        return network.tolerant();
    }

    /** Whether the network declared this server failed. */
    public boolean evicted() {
        return network.evictedHere();
    }

    /** Computations this server holds, ended or not. */
    public int computationsHeld() {
        return scheduler.computationViews().size();
    }

    /** Each task of {@code computation} this server holds, and its state: for diagnosis. */
    public List<String> describeTasks(long computation) {
        return scheduler.describeTasks(computation);
    }

    /** Connections refused for bad input since start. */
    public long connectionsRefused() {
        return connectionsRefused.get();
    }

    /** A consistent snapshot of the scheduler's counters and sizes. */
    public TaskServerNode.Status status(int port) {
        SchedulerCounters c = scheduler.counters();
        return new TaskServerNode.Status(config.name(), port, scheduler.producerCount(),
                scheduler.computationsActive(), scheduler.readyCount(), c.tasksStored(), c.tasksCompleted(),
                c.completionsReceived(), c.duplicatesDiscarded(), c.eagerReassignments(), c.revokesSent(),
                c.tasksReleased(), c.tasksClaimed(), c.successorsKept(), c.inputsForwarded(),
                connectionsRefused.get(), c.tasksDiffusedIn(), c.tasksDiffusedOut(), c.tasksAdopted(),
                c.execNanosApplied(), code.uploadsReceived, code.fetchesSent, code.bundlesServed,
                codecs.bundleCount(), c.tasksValidated(), c.validationDissents());
    }

    ServerTimeline timeline() {
        return timeline;
    }

    /**
     * How much more recent use per worker makes one computation large beside another, so that prefetch gives way to
     * the other (decision 0026; a second by default). The simulation lowers it, as its computations are small.
     */
    public void largeUsePerWorker(long nanos) {
        scheduler.dispatcher().largeUsePerWorker(nanos);
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Where this server keeps large values; null when all values travel inline. */
    org.cx.wire.ValueStore values() {
        return env.values();
    }

    ServerNetwork networkInternals() {
        return network;
    }

    DutyCycle cycle() {
        return cycle;
    }

    /** Whether {@code msg} carries enough data to have its changes mirrored in a batch of their own. */
    boolean largeForABatch(Message msg) {
        return network.largeForABatch(msg);
    }

    /** Whether the changes waiting for the next mirror batch are enough for one. */
    boolean mirrorBatchFull() {
        return network.batchFull();
    }

    CodeService code() {
        return code;
    }

    long nextPeerId() {
        return peerIds.incrementAndGet();
    }

    /** A connection was refused for bad input. */
    void refused() {
        connectionsRefused.incrementAndGet();
    }

    /** A peer completed its handshake. */
    void attached(PeerSession session) {
        sessions.put(session.peerId(), session);
    }

    /** A peer's connection closed. */
    void detached(PeerSession session) {
        sessions.remove(session.peerId());
    }

    /** Every connection past its handshake, by peer id. */
    Map<Long, PeerSession> sessions() {
        return sessions;
    }

    /** The JMX address producer {@code peerId} gave in its Hello; empty if none. */
    String producerJmx(long peerId) {
        PeerSession session = sessions.get(peerId);
        return session == null ? "" : session.jmx();
    }

    /** Tells a consumer its submission's computation id, once the mirrors have the computation. */
    void accepted(ConsumerHandle consumer, long requestId, long computation) {
        outbox.accepted(consumer, requestId, computation);
    }

    /** A task was stored here, and how: for the audit trail and the timeline. */
    void stored(TaskId id, String how) {
        if (trailLog != null) {
            trail(id, "stored:" + how);
        }
        timeline.record("stored", id, how);
    }

    /** A completion was applied here: for the commit log, once the mirrors have it. */
    void applied(TaskId id) {
        if (env.audits()) {
            env.applied(id);
        } else if (commitLog == null) {
            return;
        }
        long appliedAt = cycle.now();
        network.afterCommit(() -> {
            env.committed(id, appliedAt);
            if (commitLog != null) {
                commitLog.append(id + " " + appliedAt + " " + cycle.now() + "\n");
            }
        });
    }

    /** Runs an {@code executeOnServer} task off the server's thread; its outcome comes back as a completion. */
    void runOnServer(ReadyTask task) {
        if (!config.serverTasks()) {
            env.runHere(() -> {
                scheduler.tick(cycle.now());
                scheduler.taskFailed(null, task.task().id(), "task " + task.task().id() + " asks to run on a server "
                        + "(executeOnServer), and this network's servers run no application code: run it on a "
                        + "producer, or start the servers with --allow-server-tasks", cycle.now());
                cycle.endOfBurst();
            });
            return;
        }
        String sources = scheduler.bundleOf(task.task().id().computation());
        String missing = sources == null ? null : code.missing(sources);
        if (missing != null && code.afterArrival(missing, () -> runOnServer(task))) {
            return; // runs once its bundles are here (or fails then, saying why one is not)
        }
        env.runAside(() -> {
            TaskRunner.Outcome outcome =
                    TaskRunner.decodeAndRun(codecs, task, 1.0);
            env.runHere(() -> {
                scheduler.tick(cycle.now());
                switch (outcome) {
                    case TaskRunner.Outcome.Done d -> scheduler.completed(null, d.completion());
                    case TaskRunner.Outcome.Failed f -> scheduler.taskFailed(null, f.id(), f.reason(), cycle.now());
                }
                cycle.endOfBurst();
            });
        });
    }

    /** Appends to the audit trail beside the commit log, if there is one. */
    private void trail(TaskId id, String event) {
        if (trailLog != null) {
            trailLog.append(id + " " + event + " " + cycle.now() + "\n");
        }
    }

    /** What the network asks of this server. */
    private final class NetworkHost implements ServerNetwork.Host {
        @Override
        public void handedOn(java.util.List<org.cx.wire.ValueRef> values) {
            outbox.valuesHandedOn(values);
        }

        @Override
        public boolean trails() {
            return trailLog != null;
        }

        @Override
        public void trail(TaskId id, String event) {
            ServerCore.this.trail(id, event);
        }

        @Override
        public void transferred(RoutedPayload.Transfer transfer, int to, boolean transmitted) {
            if (timeline.enabled()) {
                for (ReadyTask task : transfer.tasks()) {
                    timeline.record(transmitted ? "transmitted" : "sent", task.task().id(), String.valueOf(to));
                }
            }
        }

        @Override
        public void mirrorsChanged(String[] addresses) {
            code.upstreamChanged();
            for (PeerSession session : sessions.values()) {
                if (session.tellsMirrors()) {
                    session.connection().send(new Message.Mirrors(addresses));
                }
            }
        }

        @Override
        public void evicted(String reason) {
            for (PeerSession session : new ArrayList<>(sessions.values())) {
                session.connection().close();
            }
            env.evicted(reason);
        }

        @Override
        public void computationEnded(long id) {
            outbox.tellProducers(id);
            outbox.flush();
        }

        @Override
        public void bundleMessage(Message message, PeerConnection from) {
            switch (message) {
                case Message.FetchBundle f -> code.fetch(f.bundle(), from);
                case Message.BundleChunk c -> code.fromServer(c);
                case Message.NoBundle b -> code.refused(b);
                default -> throw new IllegalArgumentException(message.getClass().getSimpleName());
            }
        }

        @Override
        public void adopted(int failed) {
            env.adopted(failed);
        }

        @Override
        public void mirroredBundle(long computation, String bundle) {
            code.need(computation, bundle); // counted like a computation run here, dropped when it ends
        }
    }
}
