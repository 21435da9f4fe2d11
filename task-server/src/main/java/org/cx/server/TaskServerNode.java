package org.cx.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.cx.wire.EventLoops;
import org.cx.wire.LocalSockets;
import org.cx.wire.WireClient;
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

    static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Names of the event loop threads, then of the threads that run {@code executeOnServer} tasks. */
    private static final String LOOP_THREADS = "cx-server-";
    private static final String TASK_THREADS = "cx-server-task";

    private final ServerConfig config;
    private final EventLoopGroup loop;
    private final ExecutorService serverTasks;
    private final CompletableFuture<String> evicted = new CompletableFuture<>();
    private Channel serverChannel;
    /** The local socket beside the TCP port ({@link LocalSockets}), or null. */
    private Channel localChannel;
    /** Caps what the server sends and receives ({@code -Dcx.serverLinkBytesPerSecond}); null: no cap. */
    private io.netty.handler.traffic.GlobalTrafficShapingHandler link;
    /** Connections held, in all and per address; event loop only. */
    private final ConnectionLimits limits;
    /** The large values this server holds, in a directory of their own. */
    private final org.cx.wire.ValueStore values;
    private ServerCore core;
    private ServerMBeans mbeans;
    /** The one timer that wakes the server's duty cycle; event loop only. */
    private io.netty.util.concurrent.ScheduledFuture<?> alarm;

    /** Whether {@code threadName} names a server's event loop thread, where all its networking and scheduling runs. */
    public static boolean isEventLoopThread(String threadName) {
        return threadName.startsWith(LOOP_THREADS) && !threadName.equals(TASK_THREADS);
    }

    private TaskServerNode(ServerConfig config) {
        this.config = config;
        this.loop = EventLoops.create(LOOP_THREADS + config.name(), 1);
        this.limits = new ConnectionLimits(config.guards().maxConnections(), config.guards().maxConnectionsPerAddress());
        this.values = org.cx.wire.ValueStore.temporary("server-" + config.name());
        this.serverTasks = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, TASK_THREADS);
            t.setDaemon(true);
            return t;
        });
    }

    /** The large values this server holds. */
    public org.cx.wire.ValueStore values() {
        return values;
    }

    /**
     * Meters what producers' executions use and hands it to {@code sink} in batches, one a second, once this server's
     * mirrors have them (on the event loop: the sink must not block; the accounting service's sender queues them);
     * null stops metering.
     */
    public void meterUsage(UsageSink sink) {
        loop.submit(() -> core.meterUsage(System::currentTimeMillis, sink, loop)).syncUninterruptibly();
    }

    /** Favours the computations of {@code users} over others' (their weight counts twice); see Scheduler#favour. */
    public void favour(java.util.Set<String> users) {
        loop.execute(() -> core.scheduler().favour(users));
    }

    /** Binds and starts serving. */
    public static TaskServerNode start(ServerConfig config) throws InterruptedException {
        TaskServerNode node = new TaskServerNode(config);
        node.bind();
        return node;
    }

    private void bind() throws InterruptedException {
        long linkBytes = org.cx.wire.WireConfig.serverLinkBytesPerSecond();
        // One shaper for every connection, as one network link carries them all.
        link = linkBytes <= 0 ? null
                : new io.netty.handler.traffic.GlobalTrafficShapingHandler(loop, linkBytes, linkBytes, 10);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop, loop)
                .channel(EventLoops.serverChannel())
                .option(ChannelOption.AUTO_READ, false) // accepts nothing until the server core exists
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ConnectionGuards guards = config.guards();
                        WirePipeline.install(ch, config.maxFrameBytes(), config.tls(), true, guards.frameStall(),
                                values);
                        if (link != null) {
                            ch.pipeline().addFirst("link", link);
                        }
                        // A local socket's peer is on this host: counted as the loopback's.
                        InetAddress from = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress()
                                : InetAddress.getLoopbackAddress();
                        String refusal = limits.admit(from);
                        if (refusal != null) {
                            core.refused();
                            ch.pipeline().addLast("session", new InboundHandler.Refusing(refusal));
                            return;
                        }
                        ch.closeFuture().addListener(f -> limits.release(from));
                        ch.pipeline().addLast("session", new InboundHandler(core.accept(PeerConnection.of(ch)),
                                guards.helloTimeout()));
                    }
                });
        try {
            serverChannel = bootstrap.bind(config.host(), config.port()).sync().channel();
        } catch (Exception e) { // Netty's bind failures are thrown unchecked
            if (e instanceof InterruptedException ie) {
                throw ie;
            }
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException(org.cx.wire.Listening.failure(config.host(), config.port(), e,
                    "another cx server? choose another --port, or --port 0 for any free one").getMessage(), e);
        }
        localChannel = LocalSockets.listen(loop, bootstrap.config().childHandler(), address());
        core = new ServerCore(config, advertisedAddress(), new NettyEnvironment());
        mbeans = new ServerMBeans(this);
        loop.submit(() -> {
            core.start();
            core.cycle().every(SECOND_NANOS, () -> mbeans.sync(core.scheduler()));
        }).sync();
        serverChannel.config().setAutoRead(true);
        if (localChannel != null) {
            localChannel.config().setAutoRead(true);
        }
        mbeans.register();
        LOG.info("task server {} listening on {}{} ({} transport, {})", config.name(), WireClient.hostPort(address()),
                localChannel == null ? "" : " and " + localChannel.localAddress(), EventLoops.transport(),
                config.insecure() ? "plain connections" : "TLS as " + config.tls().self());
        if (config.insecure()) {
            LOG.warn("INSECURE: connections are neither authenticated nor encrypted, and any peer may claim any role;"
                    + " anyone who can reach {} can run code here and read or forge any computation", address());
        }
    }

    /** The server's clock, alarm, links and threads on Netty. Event loop, but for the task pool. */
    private final class NettyEnvironment implements ServerCore.Environment {
        private final PeerLink.Opener links = ServerLink.opener(loop,
                (int) config.network().failTimeout().toMillis(), config.maxFrameBytes(), config.tls(), values);

        @Override
        public org.cx.wire.ValueStore values() {
            return values;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        /** Arms the one timer for {@code dueNanos}, in place of the one armed (which would ring later). */
        @Override
        public void armAlarm(long dueNanos) {
            if (alarm != null) {
                alarm.cancel(false);
            }
            alarm = loop.next().schedule(() -> core.alarm(dueNanos), Math.max(0, dueNanos - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }

        @Override
        public PeerLink.Opener links() {
            return links;
        }

        @Override
        public RandomGenerator computationIds() {
            return new SecureRandom();
        }

        @Override
        public void runAside(Runnable work) {
            serverTasks.execute(work);
        }

        @Override
        public void runHere(Runnable work) {
            loop.execute(work);
        }

        @Override
        public void evicted(String reason) {
            if (serverChannel != null) {
                serverChannel.close();
            }
            if (localChannel != null) {
                localChannel.close();
            }
            evicted.complete(reason);
        }
    }

    /**
     * The address other servers, clients and the lookup service are told to use: {@code --advertise}'s host, else the
     * bound one, else (bound to every interface) a routable address of this machine ({@link
     * org.cx.wire.Listening#routable}).
     */
    public String advertisedAddress() {
        return org.cx.wire.Listening.advertised(config.host(), config.advertise()) + ":" + port();
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
        return core.audit();
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
        return core.timeline();
    }

    /** Where this server stands in the production network. */
    public NetworkView network() {
        return query(core::networkView);
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
        return core.connectionsRefused();
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
        return core.scheduler();
    }

    /** The server's clock now (nanoseconds, as its events are stamped). Event loop. */
    long cycleNow() {
        return core.cycle().now();
    }

    /**
     * Cancels computation {@code id} as an administrator, in the server's next duty cycle (so that its end reaches
     * mirrors, servers and producers as a consumer's cancel does); why it could not be, or null.
     */
    public String cancelAsAdministrator(long id) {
        java.util.concurrent.CompletableFuture<String> answer = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> core.cycle().soon(() -> answer.complete(
                core.scheduler().submissions().cancelAsAdministrator(id, core.cycle().now()))));
        try {
            return answer.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the server did not answer: " + e, e);
        }
    }

    ServerNetwork networkInternals() {
        return core.networkInternals();
    }

    /** The JMX address producer {@code peerId} gave in its Hello; empty if none. Event loop. */
    String producerJmx(long peerId) {
        return core.producerJmx(peerId);
    }

    /**
     * The network's status as this server can give it without a connection: the whole view if it is the primary
     * root ({@link org.cx.wire.Message.NetworkStatus}), else a {@link org.cx.wire.Message.Redirect} to the root.
     */
    public org.cx.wire.Message networkStatusHere() {
        return query(() -> core.networkInternals().networkStatus());
    }

    /** A consistent snapshot of the scheduler's counters and sizes. */
    public Status status() {
        return query(() -> core.status(port()));
    }

    /**
     * What {@link #status()} returns. Claims: tasks producers ran without being sent them (a ready child of the
     * task they ran, or a kept task their value completed); kept successors and forwarded inputs are what keeping
     * copies cost. The bundle counts: uploads received from consumers, fetches this server sent
     * upstream, bundles it served (to producers and servers downstream), bundles it holds now. Validation: tasks of
     * validated computations whose result a quorum agreed on, and results the quorum contradicted.
     */
    public record Status(String name, int port, int producers, int computations, int ready, long tasksStored,
                         long tasksCompleted, long completionsReceived, long duplicatesDiscarded,
                         long eagerReassignments, long revokesSent, long tasksReleased, long tasksClaimed,
                         long successorsKept, long inputsForwarded, long connectionsRefused,
                         long tasksDiffusedIn, long tasksDiffusedOut, long tasksAdopted, long execNanosApplied,
                         long bundleUploads, long bundleFetches, long bundlesServed, int bundlesHeld,
                         long tasksValidated, long validationDissents) {
    }

    /**
     * Says that every server of the network is about to close (call it on each before closing any): they then
     * close without taking each other for failed and repairing the tree on the way down.
     */
    public void shutDownNetwork() {
        if (core != null && !loop.isShuttingDown()) {
            loop.submit(core::shutDownNetwork).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        if (mbeans != null) {
            mbeans.unregisterAll();
        }
        if (core != null && !loop.isShuttingDown()) {
            loop.submit(core::close).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (serverChannel != null) {
            LocalSockets.close(localChannel);
            serverChannel.close().syncUninterruptibly();
        }
        if (link != null) {
            link.release();
        }
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        serverTasks.shutdownNow();
        values.close();
    }

}
