package org.cx.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodecs;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskRunner;
import org.cx.wire.WirePipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running task server: a {@link Scheduler} driven by one Netty event loop that also owns every connection.
 *
 * <h2>Threading</h2>
 * All connections and the scheduler share a single event loop thread, so scheduling state needs no locks and each
 * inbound message is one atomic command. Outbound messages are gathered per connection while messages are processed
 * and flushed once per read burst, which batches assignments. {@code executeOnServer} tasks run on a separate pool
 * and come back to the loop as completions.
 */
public final class TaskServerNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskServerNode.class);

    /** How often to look for late tasks to duplicate: a tenth of the minimum lateness. */
    private static final long EAGER_CHECK_NANOS = LateTasks.MIN_LATENESS_NANOS / 10;
    private static final long MBEAN_SYNC_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Names of the event loop threads, then of the threads that run {@code executeOnServer} tasks. */
    private static final String LOOP_THREADS = "cx-server-";
    private static final String TASK_THREADS = "cx-server-task";

    private final ServerConfig config;
    private final EventLoopGroup loop;
    private final ExecutorService serverTasks;
    private final Scheduler scheduler;
    private final SessionOutbox outbox = new SessionOutbox(this);
    private final EffectAudit audit;
    private final BodyCodecs codecs = new BodyCodecs(TaskServerNode.class.getClassLoader());
    private final CodeService code;
    private final AtomicLong peerIds = new AtomicLong();
    private final AtomicLong connectionsRefused = new AtomicLong();
    /** Every connection past its handshake, by peer id. Event loop only. */
    private final Map<Long, PeerSession> sessions = new HashMap<>();
    private final CompletableFuture<String> evicted = new CompletableFuture<>();
    private Channel serverChannel;
    private ServerNetwork network;
    private final CommitLog commitLog;
    /** Beside the commit log: every task stored here and how it came, sent away or received in a transfer. */
    private final CommitLog trailLog;
    private final ServerTimeline timeline;
    private ServerMBeans mbeans;
    /** The server's clock and every piece of work not started by a message; woken by {@link #alarm}. */
    private final DutyCycle cycle = new DutyCycle(System::nanoTime, this::wakeAt);
    /** The one timer that wakes the duty cycle, and when; event loop only. */
    private io.netty.util.concurrent.ScheduledFuture<?> alarm;
    private long alarmDueNanos = Long.MAX_VALUE;

    /** Whether {@code threadName} names a server's event loop thread, where all its networking and scheduling runs. */
    public static boolean isEventLoopThread(String threadName) {
        return threadName.startsWith(LOOP_THREADS) && !threadName.equals(TASK_THREADS);
    }

    private TaskServerNode(ServerConfig config) {
        this.config = config;
        this.loop = EventLoops.create(LOOP_THREADS + config.name(), 1);
        this.serverTasks = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, TASK_THREADS);
            t.setDaemon(true);
            return t;
        });
        this.audit = config.auditEffects() ? new EffectAudit() : null;
        this.commitLog = config.commitLog() == null ? null : new CommitLog(config.commitLog());
        this.trailLog = config.commitLog() == null ? null : new CommitLog(config.trail());
        this.timeline = new ServerTimeline(config.timeline());
        this.scheduler = new Scheduler(outbox, config.resultRetention().toNanos(), config.seed(), audit);
        this.code = new CodeService(codecs, new CodeService.Upstream() {
            @Override
            public int upstream() {
                return network == null ? -1 : network.upstream();
            }

            @Override
            public void send(int server, Message message) {
                network.sendNow(server, message);
            }
        }, config.name());
    }

    /** Binds and starts serving. */
    public static TaskServerNode start(ServerConfig config) throws InterruptedException {
        TaskServerNode node = new TaskServerNode(config);
        node.bind();
        return node;
    }

    private void bind() throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop, loop)
                .channel(EventLoops.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        WirePipeline.install(ch.pipeline(), config.maxFrameBytes());
                        ch.pipeline().addLast("handshake", new Handshake(TaskServerNode.this));
                    }
                });
        serverChannel = bootstrap.bind(config.host(), config.port()).sync().channel();
        PeerLink.Opener links = ServerLink.opener(loop, (int) config.network().failTimeout().toMillis(),
                config.maxFrameBytes());
        network = new ServerNetwork(config, advertisedAddress(), links, cycle, scheduler, new NetworkHost());
        mbeans = new ServerMBeans(this);
        loop.submit(() -> {
            cycle.endOfBurstDoes(() -> {
                network.afterBurst();
                network.flush();
                outbox.flush();
            });
            network.start();
            cycle.every(Math.min(TimeUnit.SECONDS.toNanos(1), config.resultRetention().toNanos()),
                    () -> scheduler.expire(cycle.now()));
            // Late tasks become eligible for a duplicate without any message arriving: look again now and then.
            // The same tick acknowledges the mirror batches nobody waited on.
            cycle.every(EAGER_CHECK_NANOS, () -> {
                scheduler.tick(cycle.now());
                scheduler.dispatchWithEagerCopies();
                network.sendDeferredAcks();
            });
            cycle.every(MBEAN_SYNC_NANOS, () -> mbeans.sync(scheduler));
        }).sync();
        mbeans.register();
        LOG.info("task server {} listening on {} ({} transport)", config.name(), address(), EventLoops.transport());
    }

    /** Arms the one timer for {@code dueNanos}, unless it already rings earlier. Event loop. */
    private void wakeAt(long dueNanos) {
        if (dueNanos >= alarmDueNanos) {
            return;
        }
        if (alarm != null) {
            alarm.cancel(false);
        }
        alarmDueNanos = dueNanos;
        alarm = loop.next().schedule(this::alarmRang, Math.max(0, dueNanos - cycle.now()),
                TimeUnit.NANOSECONDS);
    }

    private void alarmRang() {
        alarm = null;
        alarmDueNanos = Long.MAX_VALUE;
        cycle.doWork();
        wakeAt(cycle.nextDueNanos());
    }

    /**
     * The address other servers and clients are told to use: the bound one, or this host's address when bound to
     * every interface ({@code --host 0.0.0.0}).
     */
    public String advertisedAddress() {
        String host = config.host();
        if (host.equals("0.0.0.0") || host.equals("::")) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostAddress();
            } catch (java.net.UnknownHostException e) {
                LOG.warn("cannot find this host's address ({}); other servers are told 127.0.0.1", e.getMessage());
                host = "127.0.0.1";
            }
        }
        return host + ":" + port();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    public ServerConfig config() {
        return config;
    }

    /** The effect audit, if {@link ServerConfig#auditEffects()} is on. */
    public EffectAudit audit() {
        return audit;
    }

    /**
     * Completes, with the reason, if the network declared this server failed (it was unreachable or frozen for
     * longer than the failure timeout) and it stopped serving; {@code cx server} exits then.
     */
    public CompletableFuture<String> evicted() {
        return evicted;
    }

    /** The scheduler's decisions with their times, if the config asked for them (else empty). */
    public ServerTimeline timeline() {
        return timeline;
    }

    /** Where this server stands in the production network. */
    public NetworkView network() {
        return query(() -> new NetworkView(network.self(), network.position(), network.epoch(), network.size(),
                network.mirrorGroup(), List.copyOf(network.replicasHeld())));
    }

    /**
     * @param id          this server's id (0 until it has joined)
     * @param position    its tree position (0 primary root, 1 secondary root), -1 until joined
     * @param mirrorGroup ids of the servers that mirror it
     * @param replicas    ids of the servers it mirrors
     */
    public record NetworkView(int id, int position, long epoch, int servers, List<Integer> mirrorGroup,
                              List<Integer> replicas) {
    }

    /** Connections refused for bad input since start. */
    public long connectionsRefused() {
        return connectionsRefused.get();
    }

    /** Runs {@code query} on the scheduler thread and returns its answer: the safe way to read scheduler state. */
    public <T> T query(Callable<T> query) {
        try {
            return loop.next().submit(query).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("scheduler did not answer: " + e, e);
        }
    }

    Scheduler scheduler() {
        return scheduler;
    }

    ServerNetwork networkInternals() {
        return network;
    }

    /** The JMX address producer {@code peerId} gave in its Hello; empty if none. Event loop. */
    String producerJmx(long peerId) {
        PeerSession session = sessions.get(peerId);
        return session == null ? "" : session.jmx();
    }

    DutyCycle cycle() {
        return cycle;
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

    /** A peer completed its handshake. Event loop. */
    void attached(PeerSession session) {
        sessions.put(session.peerId(), session);
        LOG.debug("peer {} joined as {}", session.peerId(), session.role());
    }

    /** A peer's connection closed. Event loop. */
    void detached(PeerSession session) {
        sessions.remove(session.peerId());
    }

    /** Tells a consumer its submission's computation id, once the mirrors have the computation. */
    void accepted(ConsumerHandle consumer, long requestId, long computation) {
        outbox.accepted(consumer, requestId, computation);
    }

    /** A consistent snapshot of the scheduler's counters and sizes. */
    public Status status() {
        return query(() -> {
            SchedulerCounters c = scheduler.counters();
            return new Status(config.name(), port(), scheduler.producerCount(), scheduler.computationsActive(),
                    scheduler.readyCount(), c.tasksStored(), c.tasksCompleted(), c.completionsReceived(),
                    c.duplicatesDiscarded(), c.eagerReassignments(), c.revokesSent(), c.tasksReleased(),
                    c.tasksClaimed(), c.successorsKept(), c.inputsForwarded(), connectionsRefused.get(),
                    c.tasksDiffusedIn(), c.tasksDiffusedOut(), c.tasksAdopted(), c.execNanosApplied(),
                    code.uploadsReceived, code.fetchesSent, code.bundlesServed, codecs.bundleCount());
        });
    }

    /**
     * What {@link #status()} returns. Claims: tasks producers ran without being sent them (a ready child of the
     * task they ran, or a kept task their value completed); kept successors and forwarded inputs are what keeping
     * copies cost. The bundle counts: uploads received from consumers, fetches this server sent
     * upstream, bundles it served (to producers and servers downstream), bundles it holds now.
     */
    public record Status(String name, int port, int producers, int computations, int ready, long tasksStored,
                         long tasksCompleted, long completionsReceived, long duplicatesDiscarded,
                         long eagerReassignments, long revokesSent, long tasksReleased, long tasksClaimed,
                         long successorsKept, long inputsForwarded, long connectionsRefused,
                         long tasksDiffusedIn, long tasksDiffusedOut, long tasksAdopted, long execNanosApplied,
                         long bundleUploads, long bundleFetches, long bundlesServed, int bundlesHeld) {
    }

    /**
     * Says that every server of the network is about to close (call it on each before closing any): they then
     * close without taking each other for failed and repairing the tree on the way down.
     */
    public void shutDownNetwork() {
        if (network != null && !loop.isShuttingDown()) {
            loop.submit(network::shutDown).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        if (mbeans != null) {
            mbeans.unregisterAll();
        }
        if (network != null && !loop.isShuttingDown()) {
            loop.submit(network::close).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        serverTasks.shutdownNow();
    }

    /** Appends to the audit trail beside the commit log, if there is one. */
    private void trail(TaskId id, String event) {
        if (trailLog != null) {
            trailLog.append(id + " " + event + " " + cycle.now() + "\n");
        }
    }

    /** What the network asks of this server. Event loop. */
    private final class NetworkHost implements ServerNetwork.Host {
        @Override
        public boolean trails() {
            return trailLog != null;
        }

        @Override
        public void trail(TaskId id, String event) {
            TaskServerNode.this.trail(id, event);
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
            if (serverChannel != null) {
                serverChannel.close();
            }
            evicted.complete(reason);
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
                case Message.BundleChunk c -> code.fetched(c);
                case Message.NoBundle b -> code.refused(b);
                default -> throw new IllegalArgumentException(message.getClass().getSimpleName());
            }
        }

        @Override
        public void mirroredBundle(long computation, String bundle) {
            code.need(computation, bundle); // counted like a computation run here, dropped when it ends
        }
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
        if (commitLog != null) {
            long appliedAt = cycle.now();
            network.afterCommit(() -> commitLog.append(id + " " + appliedAt + " " + cycle.now() + "\n"));
        }
    }

    /** Runs an {@code executeOnServer} task off the event loop; its outcome comes back as a completion. */
    void runOnServer(ReadyTask task) {
        String bundle = scheduler.bundleOf(task.task().id().computation());
        if (bundle != null && !code.has(bundle) && code.afterArrival(bundle, () -> runOnServer(task))) {
            return; // runs once the bundle is here (or fails then, saying why it is not)
        }
        serverTasks.execute(() -> {
            TaskRunner.Outcome outcome =
                    TaskRunner.decodeAndRun(codecs.forComputation(task.task().id().computation()), task);
            loop.execute(() -> {
                scheduler.tick(cycle.now());
                switch (outcome) {
                    case TaskRunner.Outcome.Done d -> scheduler.completed(null, d.completion());
                    case TaskRunner.Outcome.Failed f ->
                            scheduler.taskFailed(null, f.id(), f.reason(), cycle.now());
                }
                cycle.endOfBurst();
            });
        });
    }

    /** Every connection past its handshake, by peer id. Event loop only. */
    Map<Long, PeerSession> sessions() {
        return sessions;
    }
}
