package org.cx.producer;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.fs.ActingFor;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodecs;
import org.cx.wire.Completion;
import org.cx.wire.EventLoops;
import org.cx.wire.Jmx;
import org.cx.wire.KeptTasks;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.ValueStore;
import org.cx.wire.WireConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer attached to one task server. See the package docs for the flow.
 *
 * <h2>Started once, or as a daemon</h2>
 * {@link #start} attaches to its server at once, fails if it cannot, and stops when its server and that server's
 * mirror group are gone. {@link #daemon} never gives up: it looks for a server through its {@link ServerFinder} with
 * {@link Backoff back-off} until one takes it, and again whenever it loses its server and the mirror group; its
 * {@link #shutdown} gives back the tasks it has not started and lets running ones finish first.
 *
 * <h2>Threading</h2>
 * The connection's event loop decodes assignments, applies drops and decides what to request; it is the only
 * thread that touches the request bookkeeping. Workers block on the {@link TaskCache} and hand completions back
 * through a lock-free queue, drained on the event loop in batches.
 *
 * <p>Its parts are classes of their own: {@link WorkerPool} (the workers), {@link TaskCache} and {@link KeptTasks},
 * {@link PrefetchPolicy}, {@link BundleFetcher} and {@link ProducerCode} (code and shared data), {@link ProducerLink}
 * (the connection's handler), {@link ServerSearch} (finding a server), {@link Governor} (the owner's rules) and
 * {@link ProducerMBean}. What stays here (about 690 lines, a fifth of them the figures it reports) is the life cycle
 * and the conductor on the event loop: batching completions, asking for credit, and the server's messages.
 */
public final class Producer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Producer.class);
    /** At most this many unready tasks are kept; a task spawning more leaves its unready children to the server. */
    static final int KEPT_CAPACITY = 4096;

    private final ProducerConfig config;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final TaskCache cache = new TaskCache(this::scheduleDrain);
    /** Unready tasks this producer stored, run here when its own value completes them. */
    private final KeptTasks kept = new KeptTasks(KEPT_CAPACITY);
    private final BodyCodecs codecs;
    /** Large values made or needed here ({@link org.cx.wire.ValueRef}). */
    private final ValueStore values;
    private final PrefetchPolicy policy;
    private final ConcurrentLinkedQueue<Message> fromWorkers = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicLong tasksFailed = new AtomicLong();
    private final CompletableFuture<Void> disconnected = new CompletableFuture<>();
    private final WorkerPool workers;
    private final BundleFetcher bundles;
    /** Bundles on their way: from the disk cache or the server, checked off the event loop. */
    private final ProducerCode code;
    private volatile boolean closing;
    /** Whether {@link #shutdown} began, and when it has ended. */
    private final java.util.concurrent.atomic.AtomicBoolean shutdownStarted =
            new java.util.concurrent.atomic.AtomicBoolean();
    private final CompletableFuture<Void> shutDown = new CompletableFuture<>();
    private volatile Channel channel;
    /** Where to go if the server fails: its mirror group, as it last told us. */
    private volatile List<String> mirrors = List.of();
    private final AtomicLong failovers = new AtomicLong();
    /** The frame limit, read once (a system property lookup costs more than a completion's bookkeeping). */
    private final int maxFrameBytes = WireConfig.maxFrameBytes();
    /** Whose each computation with tasks here is, as the server said ({@code Code}). */
    private static final ActingFor NOBODY = ActingFor.plainly("");
    /** Whose each computation is, with the server's grant to act for them in the file service. */
    private final java.util.Map<Long, ActingFor> owners = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Computations of its server that it said started or gave this producer tasks of, and that have not ended: how
     * deep its workers cache their own children depends on how many ({@link PrefetchPolicy#ownChildrenAhead}).
     */
    private final java.util.Set<Long> live = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Computations whose results other producers check: this one claims and keeps none of their tasks. */
    private final java.util.Set<Long> validated = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final long startedNanos = System.nanoTime();
    /** Where to look for a server when there is none; null: stop instead ({@link #start}). */
    private final ServerFinder finder;
    private final Listener listener;
    /** Wakes the thread that looks for a server from its back-off when the producer closes. */
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    private final IdleLog idleLog;
    private final TaskTimeline timeline;
    private javax.management.ObjectName mbeanName;
    /** Carries out the owner's rules and caps; null if there are none. */
    private volatile Governor governor;
    // Event-loop-only state.
    private int outstandingCredit;
    /**
     * What the server believes about our idle workers: the last count we sent, less the tasks it has assigned
     * since (it counts each against an idle worker). We speak only when reality differs.
     */
    private int serverIdleEstimate = -1;
    /** Open workers as last told to the server (-1: not yet). */
    private int serverOpenEstimate = -1;
    private long requestSentNanos;

    /** What a daemon producer tells its owner as it finds and loses servers. */
    public interface Listener {
        /** {@code producer} attached to {@code server} (again, after a loss, if {@code again}). */
        void attached(Producer producer, String server, boolean again);

        /** No server took this producer: {@code problem} says why; the next try is in {@code next}. */
        void waiting(String problem, java.time.Duration next);

        Listener SILENT = new Listener() {
            @Override
            public void attached(Producer producer, String server, boolean again) {
            }

            @Override
            public void waiting(String problem, java.time.Duration next) {
            }
        };
    }

    private Producer(ProducerConfig config, EventLoopGroup group, boolean ownsGroup, ClassLoader applicationClasses,
                     ServerFinder finder, Listener listener) {
        this.config = config;
        this.finder = finder;
        this.listener = listener;
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.values = ValueStore.temporary("producer-" + config.name());
        this.codecs = new BodyCodecs(applicationClasses, BodyCodecs.KEEP_UNUSED_BYTES, values);
        this.policy = new PrefetchPolicy(config.workers(), config.prefetch(), config.maxCached());
        this.idleLog = new IdleLog(config.workers());
        this.timeline = new TaskTimeline(config.workers(), config.timeline());
        this.workers = new WorkerPool(config, cache, kept, codecs, c -> owners.getOrDefault(c, NOBODY),
                validated::contains, idleLog, timeline, fromWorkers, this::scheduleDrain, tasksFailed);
        this.bundles = new BundleFetcher(codecs, config.name());
        this.code = new ProducerCode(config.name(), config.tls(), bundles, new BundleDiskCache(config.cache()),
                new ProducerCode.Link() {
                    @Override
                    public Channel channel() {
                        return channel;
                    }

                    @Override
                    public void cache(List<ReadyTask> tasks) {
                        Producer.this.cache(tasks);
                    }

                    @Override
                    public void drain() {
                        Producer.this.drain();
                    }

                    @Override
                    public void failed(Message.TaskFailed failed) {
                        tasksFailed.incrementAndGet();
                        channel.write(failed);
                    }
                });
    }

    /** Connects with its own event loop thread. */
    public static Producer start(ProducerConfig config) throws IOException {
        return start(config, EventLoops.create("cx-producer-io", 1), true);
    }

    /** Connects on a shared event loop group (many producers in one process, each with its own connection). */
    public static Producer start(ProducerConfig config, EventLoopGroup group) throws IOException {
        return start(config, group, false);
    }

    private static Producer start(ProducerConfig config, EventLoopGroup group, boolean ownsGroup) throws IOException {
        Producer p = new Producer(config, group, ownsGroup, Thread.currentThread().getContextClassLoader(), null,
                Listener.SILENT);
        try {
            p.connect();
            p.startWorkers();
            p.registerMBean();
        } catch (IOException | RuntimeException e) {
            if (ownsGroup) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
        return p;
    }

    /**
     * Starts a producer that never gives up: its workers start at once, and it looks for a server through
     * {@code finder} until one takes it, and again each time it loses its server and that server's mirror group.
     * {@code listener} hears when it attaches and why it waits.
     */
    public static Producer daemon(ProducerConfig config, ServerFinder finder, Listener listener) {
        Producer p = new Producer(config, EventLoops.create("cx-producer-io", 1), true,
                Thread.currentThread().getContextClassLoader(), finder, listener);
        p.startWorkers();
        p.registerMBean();
        p.lookForAServer(List.of());
        return p;
    }

    private void startWorkers() {
        workers.start();
        if (config.owner().governed()) {
            governor = Governor.start(config.name(), config.workers(), workers, config.owner(), new Governor.Hooks() {
                @Override
                public void giveBackCached() {
                    Channel ch = channel;
                    if (ch != null) {
                        ch.eventLoop().execute(() -> {
                            giveBack(cache.takeAll());
                            drain();
                        });
                    }
                }

                @Override
                public String server() {
                    return serverAddress();
                }

                @Override
                public long tasksRun() {
                    return Producer.this.tasksRun();
                }
            });
        }
    }

    /** What the owner's rules make this producer do now; null if it has none ({@link OwnerSettings#NONE}). */
    Governor.Status ownerStatus() {
        Governor g = governor;
        return g == null ? null : g.status();
    }

    private void connect() throws IOException {
        channel = WireClient.connect(group, config.server(), config.tls(), hello(), this::attached, 10_000, values);
        channel.eventLoop().execute(this::drain);
        LOG.debug("producer {} attached to {} with {} workers", config.name(), config.server(), config.workers());
    }

    private Message.Hello hello() {
        return new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, config.name(), config.workers(),
                config.jmx());
    }

    private ProducerLink attached(Message.Welcome welcome) {
        mirrors = List.of(welcome.mirrors());
        return new ProducerLink(this);
    }

    /** The address of the server this producer is attached to now. */
    public String serverAddress() {
        Channel ch = channel;
        return ch == null || !ch.isActive() ? "" : WireClient.hostPort(WireClient.serverAddress(ch));
    }

    /** {@code System.nanoTime()} when tasks last arrived from the server. */
    public long lastAssignNanos() {
        return lastAssignNanos;
    }

    private volatile long lastAssignNanos;

    /** How many times this producer moved to another server after losing its own. */
    public long failovers() {
        return failovers.get();
    }

    private void registerMBean() {
        mbeanName = Jmx.register("org.cx:type=Producer,name=" + javax.management.ObjectName.quote(config.name())
                + ",id=" + INSTANCES.incrementAndGet(), new ProducerMBean(this));
    }

    private static final AtomicLong INSTANCES = new AtomicLong();

    /** When each worker waited for a task (for reports that split idle time by phase). */
    public IdleLog idleLog() {
        return idleLog;
    }

    /** The tasks this producer's workers ran, with their times, if its config asked for them (else empty). */
    public TaskTimeline timeline() {
        return timeline;
    }

    /** Share of worker time spent waiting for a task since start, 0..1. */
    public double idleFraction() {
        double total = (double) (System.nanoTime() - startedNanos) * config.workers();
        return total <= 0 ? 0 : Math.min(1, workers.idleNanos() / total);
    }

    /** The large values this producer holds ({@link org.cx.wire.ValueRef}). */
    public ValueStore values() {
        return values;
    }

    /** Code and shared data bundles this producer fetched from its server. */
    public long bundlesFetched() {
        return bundles.fetches() - code.fromDisk();
    }

    /** Code and shared data bundles this producer found in its disk cache instead of fetching them. */
    public long bundlesFromDisk() {
        return code.fromDisk();
    }

    /** Tasks waiting for their code bundle to arrive. */
    public int tasksAwaitingCode() {
        return bundles.parkedCount();
    }

    /** Where this producer runs task code (known once started). */
    public TaskBox.Isolation isolation() {
        return workers.isolation();
    }

    /** The worker processes and their descendants now (none for in-process workers), for monitoring. */
    public long[] workerPids() {
        return workers.workerPids();
    }

    /** Worker processes replaced because task code ended them or was stopped (or its computation ended). */
    public long workerRestarts() {
        return workers.workerRestarts();
    }

    /** Tasks that threw or could not be decoded or loaded here. */
    public long tasksFailed() {
        return tasksFailed.get();
    }

    /** Completes when a worker has run its first task. */
    public CompletableFuture<Void> firstTask() {
        return workers.firstTask;
    }

    /**
     * Completes when the producer stops: closed, or (started once) its server is gone and no server of its mirror
     * group took it.
     */
    public CompletableFuture<Void> disconnected() {
        return disconnected;
    }

    public long tasksRun() {
        return workers.tasksRun();
    }

    public int cachedTasks() {
        return cache.size();
    }

    public ProducerConfig config() {
        return config;
    }

    /** Cuts the connection abruptly, as a network failure would; the server re-assigns what this producer held. */
    public void cutConnection() {
        channel.close();
    }

    /**
     * Stops as a daemon should: the workers take no new task, the cached ones are given back to the server at once
     * (others run them), running tasks may finish for up to {@code grace} and their completions are sent, and then
     * the producer closes.
     */
    public void shutdown(java.time.Duration grace) {
        if (!shutdownStarted.compareAndSet(false, true)) {
            shutDown.join(); // a second caller (the drain operation, then SIGTERM) waits for the first
            return;
        }
        try {
            stop(grace);
        } finally {
            shutDown.complete(null);
        }
    }

    private void stop(java.time.Duration grace) {
        closing = true;
        closeGovernor(); // frozen tasks must run to finish
        workers.finish();
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.eventLoop().execute(() -> {
                giveBack(cache.takeAll());
                channel.flush();
            });
        }
        if (!workers.awaitIdle(grace)) {
            LOG.info("producer {}: tasks still running after {} s are abandoned", config.name(), grace.toSeconds());
        }
        if (ch != null && ch.isActive()) {
            ch.eventLoop().submit(this::drain).syncUninterruptibly(); // the last completions
        }
        close();
    }

    private void closeGovernor() {
        Governor g = governor;
        governor = null;
        if (g != null) {
            g.close();
        }
    }

    /** Tells the server this producer holds {@code ids} no longer (event loop). */
    private void giveBack(List<TaskId> ids) {
        if (!ids.isEmpty()) {
            channel.write(new Message.GiveBack(ids.toArray(TaskId[]::new)));
        }
    }

    @Override
    public void close() {
        closing = true;
        closed.countDown();
        closeGovernor();
        Jmx.unregister(mbeanName);
        cache.close();
        workers.stop();
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        values.close();
    }

    private void scheduleDrain() {
        Channel ch = channel;
        if (ch != null && drainScheduled.compareAndSet(false, true)) {
            ch.eventLoop().execute(this::drain);
        }
    }

    // ---------------------------------------------------------------- event loop

    /**
     * Sends queued completions in batches (as few as fit in half a frame each), then asks for what the cache needs.
     * Event loop only.
     */
    void drain() {
        drainScheduled.set(false);
        List<Completion> batch = new ArrayList<>();
        long batchBytes = 0;
        long batchLimit = maxFrameBytes / 2;
        for (Message m; (m = fromWorkers.poll()) != null; ) {
            switch (m) {
                case Message.Completed c -> {
                    for (Completion completion : c.completions()) {
                        long bytes = completion.frameBytes();
                        if (!batch.isEmpty() && batchBytes + bytes > batchLimit) {
                            flushCompletions(batch);
                            batchBytes = 0;
                        }
                        batch.add(completion);
                        batchBytes += bytes;
                        if (completion.cachedHere() >= 0) {
                            outstandingCredit = Math.max(0, outstandingCredit - 1); // the server counts it as given
                        }
                        policy.recordTaskNanos(completion.execNanos());
                    }
                }
                default -> {
                    flushCompletions(batch);
                    batchBytes = 0;
                    channel.write(m);
                }
            }
        }
        flushCompletions(batch);
        requestIfNeeded();
        channel.flush();
    }

    private void flushCompletions(List<Completion> batch) {
        if (!batch.isEmpty()) {
            channel.write(new Message.Completed(batch.toArray(Completion[]::new)));
            batch.clear();
        }
    }

    private void requestIfNeeded() {
        int open = workers.gate().openWorkers();
        policy.openWorkers(open);
        int starving = cache.starvingWorkers();
        workers.cacheDepth(policy.ownChildrenAhead(live.size()));
        int credit = policy.creditToRequest(starving, cache.size(), outstandingCredit);
        if (credit != 0 || starving != serverIdleEstimate || open != serverOpenEstimate) {
            outstandingCredit += credit;
            serverIdleEstimate = starving;
            serverOpenEstimate = open;
            if (credit > 0) {
                requestSentNanos = System.nanoTime();
            }
            channel.write(new Message.Request(credit, starving, open));
        }
    }

    /** A new connection is up: start over with its server, which knows nothing of this producer's requests. */
    private void attachedTo(Channel next, boolean again) {
        next.eventLoop().execute(() -> {
            outstandingCredit = 0;
            serverIdleEstimate = -1;
            serverOpenEstimate = -1;
            requestSentNanos = 0;
            if (again) {
                failovers.incrementAndGet();
            }
            drain();
        });
        listener.attached(this, WireClient.hostPort(WireClient.serverAddress(next)), again);
    }

    private void lookForAServer(List<String> mirrorGroup) {
        new ServerSearch(config.name(), finder, listener, new ServerSearch.Attach() {
            @Override
            public Channel connect(List<String> addresses, long millis) throws IOException {
                return WireClient.connectAny(group, addresses, config.tls(), hello(), Producer.this::attached, millis,
                        values);
            }

            @Override
            public void attached(Channel next, boolean again) {
                attachedTo(next, again);
            }

            @Override
            public void gaveUp() {
                disconnected.complete(null);
            }
        }, closed, () -> closing).start(mirrorGroup);
    }

    // ---------------------------------------------------------------- messages from the server (event loop)

    /** The link to a server is up: messages may arrive before {@link #connect} returns. */
    void linked(Channel ch) {
        channel = ch;
    }

    /** One message from the server. */
    void onMessage(Message msg) {
        switch (msg) {
            case Message.Assign a -> onAssign(a.tasks());
            case Message.Drop d -> {
                cache.drop(d.ids());
                kept.drop(d.ids());
                workers.dropped(d.ids());
            }
            case Message.Keep k -> {
                for (TaskEnvelope e : config.claim() ? k.tasks() : new TaskEnvelope[0]) {
                    if (!validated.contains(e.id().computation())) {
                        kept.keep(e); // without claims nothing would run them, or ever let them go
                    }
                }
            }
            case Message.Inputs in -> kept.forwarded(in.values());
            case Message.Unkeep u -> kept.drop(u.ids());
            case Message.Revoke r -> {
                // Always answer: the server learns which copies had started and will not ask for them again.
                List<TaskId> released = cache.drop(r.ids());
                channel.write(new Message.Released(released.toArray(TaskId[]::new)));
            }
            case Message.ComputationStarted s -> live.add(s.computation());
            case Message.ComputationEnded e -> {
                cache.dropComputation(e.computation());
                kept.dropComputation(e.computation());
                workers.ended(e.computation());
                codecs.remove(e.computation());
                bundles.ended(e.computation());
                owners.remove(e.computation());
                live.remove(e.computation());
                validated.remove(e.computation());
                values.drop(e.computation());
            }
            case Message.Mirrors m -> mirrors = List.of(m.addresses());
            case Message.Code c -> onCode(c);
            case Message.BundleChunk c -> code.chunk(c);
            case Message.NoBundle n -> code.unavailable(n.bundle(), n.reason());
            case Message.Refused r -> LOG.warn("server refused this producer: {}", r.reason());
            default -> LOG.warn("ignoring unexpected {} from the server", msg.getClass().getSimpleName());
        }
    }

    /**
     * Tasks of {@code c.computation()} are {@code c.owner()}'s and run from bundle {@code c.bundle()}: bind it, or
     * fetch it first.
     */
    private void onCode(Message.Code c) {
        owners.put(c.computation(), new ActingFor(c.owner(), c.grant(), c.grant().isEmpty()
                ? org.cx.security.CodeSigning.Signed.NONE
                : new org.cx.security.CodeSigning.Signed(c.grantSigner(), c.grantSignature())));
        if (c.validated()) {
            validated.add(c.computation());
        }
        live.add(c.computation());
        code.code(c);
    }

    private void onAssign(ReadyTask[] tasks) {
        lastAssignNanos = System.nanoTime();
        outstandingCredit = Math.max(0, outstandingCredit - tasks.length);
        serverIdleEstimate = Math.max(0, serverIdleEstimate - tasks.length);
        if (requestSentNanos != 0) {
            policy.recordRoundTripNanos(System.nanoTime() - requestSentNanos);
            requestSentNanos = 0;
        }
        List<ReadyTask> runnable = new ArrayList<>(tasks.length);
        for (ReadyTask ready : tasks) {
            if (!bundles.park(ready)) { // parked: its code is on the way
                runnable.add(ready);
            }
        }
        cache(runnable);
    }

    /**
     * Ready tasks whose code is here go to the cache, still encoded: they are decoded where they run. Tasks that
     * arrive once the producer is stopping (assigned before the server heard so) go back at once.
     */
    private void cache(List<ReadyTask> tasks) {
        if (closing) {
            Channel ch = channel;
            if (ch != null && ch.isActive()) {
                giveBack(tasks.stream().map(t -> t.task().id()).toList());
                ch.flush();
            }
            return;
        }
        if (timeline.enabled()) {
            long now = System.nanoTime();
            for (ReadyTask t : tasks) {
                timeline.cached(t.task().id(), now);
            }
        }
        cache.add(tasks);
    }

    /** The link to the server closed: fail over to its mirror group, or stop if there is none. */
    void lost(Object server) {
        synchronized (kept) { // not between a worker's check of the connection and its claim (WorkerPool)
            cache.clear(); // a task taken before this belongs to the server left: its completion is discarded
            kept.clear(); // the next server knows nothing of them
        }
        live.clear(); // the next server says again which computations it gives this producer tasks of
        bundles.clear(); // the next server says again which code its tasks need
        fromWorkers.clear();
        if (closing) {
            disconnected.complete(null);
            return;
        }
        List<String> candidates = new ArrayList<>(mirrors);
        if (candidates.isEmpty() && finder == null) {
            LOG.warn("producer {} lost its server {}", config.name(), server);
            disconnected.complete(null);
            return;
        }
        java.util.Collections.shuffle(candidates); // spread the failed server's producers over its group
        LOG.info("producer {} lost its server {}; {}", config.name(), server, candidates.isEmpty()
                ? "looking for another" : "failing over to one of " + candidates);
        lookForAServer(candidates);
    }
}
