package org.cx.producer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodec;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Completion;
import org.cx.wire.EventLoops;
import org.cx.wire.Jmx;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.TaskRunner;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer attached to one task server. See the package docs for the flow.
 *
 * <h2>Threading</h2>
 * The connection's event loop decodes assignments, applies drops and decides what to request; it is the only
 * thread that touches the request bookkeeping. Workers block on the {@link TaskCache} and hand completions back
 * through a lock-free queue, drained on the event loop in batches.
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
    private final PrefetchPolicy policy;
    private final ConcurrentLinkedQueue<Message> fromWorkers = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicLong tasksRun = new AtomicLong();
    private final AtomicLong tasksFailed = new AtomicLong();
    private final CompletableFuture<Void> disconnected = new CompletableFuture<>();
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean closing;
    private volatile Channel channel;
    /** Where to go if the server fails: its mirror group, as it last told us. */
    private volatile List<String> mirrors = List.of();
    private final AtomicLong failovers = new AtomicLong();
    private final AtomicLong bundlesFetched = new AtomicLong();
    /** Worker time spent waiting for a task, summed over workers. */
    private final java.util.concurrent.atomic.LongAdder workerIdleNanos = new java.util.concurrent.atomic.LongAdder();
    private final long startedNanos = System.nanoTime();
    private final IdleLog idleLog;
    private final TaskTimeline timeline;
    private volatile int awaitingCodeCount;
    private javax.management.ObjectName mbeanName;
    // ---- code bundles on their way (event loop only)
    /** Tasks of computations whose bundle is being fetched, by computation. */
    private final Map<Long, List<ReadyTask>> parked = new HashMap<>();
    /** Computations waiting for each bundle being fetched, by hash. */
    private final Map<String, List<Long>> awaitingCode = new HashMap<>();
    private final Map<String, BundleAssembly> assemblies = new HashMap<>();
    // Event-loop-only state.
    private int outstandingCredit;
    /**
     * What the server believes about our idle workers: the last count we sent, less the tasks it has assigned
     * since (it counts each against an idle worker). We speak only when reality differs.
     */
    private int serverIdleEstimate = -1;
    private long requestSentNanos;

    private Producer(ProducerConfig config, EventLoopGroup group, boolean ownsGroup, ClassLoader applicationClasses) {
        this.config = config;
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.codecs = new BodyCodecs(applicationClasses);
        this.policy = new PrefetchPolicy(config.workers(), config.prefetch(), config.maxCached());
        this.idleLog = new IdleLog(config.workers());
        this.timeline = new TaskTimeline(config.workers(), config.timeline());
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
        Producer p = new Producer(config, group, ownsGroup, Thread.currentThread().getContextClassLoader());
        try {
            p.connect();
            p.registerMBean();
        } catch (IOException | RuntimeException e) {
            if (ownsGroup) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
        return p;
    }

    private void connect() throws IOException {
        channel = WireClient.connect(group, config.server(), hello(), this::attached, 10_000);
        for (int i = 0; i < config.workers(); i++) {
            int worker = i;
            Thread t = new Thread(() -> work(worker), config.name() + "-worker-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        channel.eventLoop().execute(this::drain);
        LOG.debug("producer {} attached to {} with {} workers", config.name(), config.server(), config.workers());
    }

    private Message.Hello hello() {
        return new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, config.name(), config.workers(),
                config.jmx());
    }

    private Connection attached(Message.Welcome welcome) {
        mirrors = List.of(welcome.mirrors());
        return new Connection();
    }

    /** The address of the server this producer is attached to now. */
    public String serverAddress() {
        Channel ch = channel;
        return ch == null ? "" : String.valueOf(ch.remoteAddress());
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
                + ",id=" + INSTANCES.incrementAndGet(), new ProducerMXBean() {
                    @Override
                    public String getName() {
                        return config.name();
                    }

                    @Override
                    public String getServer() {
                        return serverAddress();
                    }

                    @Override
                    public int getWorkers() {
                        return config.workers();
                    }

                    @Override
                    public int getCachedTasks() {
                        return cache.size();
                    }

                    @Override
                    public int getTasksAwaitingCode() {
                        return awaitingCodeCount;
                    }

                    @Override
                    public long getTasksRun() {
                        return tasksRun();
                    }

                    @Override
                    public long getTasksFailed() {
                        return tasksFailed.get();
                    }

                    @Override
                    public double getIdleFraction() {
                        return idleFraction();
                    }

                    @Override
                    public long getFailovers() {
                        return failovers();
                    }

                    @Override
                    public long getBundlesFetched() {
                        return bundlesFetched();
                    }
                });
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
        return total <= 0 ? 0 : Math.min(1, workerIdleNanos.sum() / total);
    }

    /** Code bundles this producer fetched from its server. */
    public long bundlesFetched() {
        return bundlesFetched.get();
    }

    /** Completes when the connection to the server is gone and no server of its mirror group took this producer. */
    public CompletableFuture<Void> disconnected() {
        return disconnected;
    }

    public long tasksRun() {
        return tasksRun.get();
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

    @Override
    public void close() {
        closing = true;
        Jmx.unregister(mbeanName);
        cache.close();
        for (Thread t : workers) {
            t.interrupt();
        }
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    // ---------------------------------------------------------------- workers

    private void work(int worker) {
        try {
            Task task = null;
            int taken = 0;
            while (!closing) {
                if (task == null) {
                    long waitFrom = System.nanoTime();
                    idleLog.waiting(worker, waitFrom);
                    TaskCache.Taken next = cache.takeUnder(Long.MAX_VALUE);
                    long waitTo = System.nanoTime();
                    idleLog.working(worker, waitTo);
                    workerIdleNanos.add(waitTo - waitFrom);
                    if (next == null) {
                        return;
                    }
                    task = next.task();
                    taken = next.connection();
                }
                task = runAndClaim(worker, task, taken);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Worker {@code worker} runs {@code task}, hands its completion to the event loop, and returns the task it claims
     * to run next (see {@link #claim}), or null.
     */
    private Task runAndClaim(int worker, Task task, int taken) {
        BodyCodec codec = codecs.forComputation(task.id().computation());
        long start = timeline.enabled() ? System.nanoTime() : 0;
        TaskRunner.Outcome outcome = TaskRunner.run(codec, task, config.speed());
        if (timeline.enabled()) {
            timeline.record(worker, start, System.nanoTime(), task.id(), task.getClass().getSimpleName());
        }
        Task next = null;
        switch (outcome) {
            case TaskRunner.Outcome.Done d -> {
                tasksRun.incrementAndGet();
                if (taken != cache.connection()) {
                    return null; // a task of a server this producer has left: the server that took over runs it
                }
                // Workers supply their own values to kept copies in the order their completions leave: otherwise
                // a worker could claim a task on a value another worker supplied but had not yet queued, the
                // server would see the claiming completion first, void the claim, and hand the task out again.
                synchronized (kept) {
                    Claim claim = config.claim() ? claim(codec, d.completion()) : new Claim(d.completion(), null);
                    next = claim.next();
                    fromWorkers.add(new Message.Completed(new Completion[] {claim.completion()}));
                }
            }
            case TaskRunner.Outcome.Failed f -> {
                tasksFailed.incrementAndGet();
                LOG.info("task {} failed: {}", f.id(), firstLine(f.reason()));
                if (taken == cache.connection()) {
                    fromWorkers.add(new Message.TaskFailed(f.id(), f.reason()));
                }
            }
        }
        if (next != null || cache.size() > 0) {
            scheduleDrain();
        }
        // Otherwise this worker is about to wait on the cache, which schedules the drain itself: then the
        // completion and the news that a worker is idle leave in the same batch, with one wake-up of the loop.
        return next;
    }

    /** What a worker reports, and the task it runs next without asking the server (null: none). */
    private record Claim(Completion completion, Task next) {
    }

    /**
     * Picks the task this worker runs next itself: the best ready child of the task it just ran (work-first, as in
     * Cilk: no round trip on the spawn path) or else a kept task its values just completed (no round trip on the
     * join path). Keeps copies of the unready tasks it stored, for the same reason.
     */
    private Claim claim(BodyCodec codec, Completion completion) {
        completion = completion.keeping(kept.keepAll(completion.spawned()));
        ReadyTask joined = null;
        int joinedBy = -1;
        ValueEnvelope[] values = completion.values();
        for (int i = 0; i < values.length; i++) {
            ReadyTask t = kept.supply(values[i]);
            if (t != null && joined == null) {
                joined = t;
                joinedBy = i; // any other task completed here is unclaimed: the server hands it out
            }
        }
        int child = completion.bestReadyChild();
        try {
            if (child >= 0) {
                Task next = TaskRunner.decode(codec, new ReadyTask(completion.spawned()[child], new byte[0][]));
                return new Claim(completion.withClaim(child), next);
            }
            if (joined != null) {
                return new Claim(completion.withClaimedValue(joinedBy), TaskRunner.decode(codec, joined));
            }
        } catch (RuntimeException e) {
            // the server will hand it out; whoever runs it reports the problem
        }
        return new Claim(completion, null);
    }

    private void scheduleDrain() {
        Channel ch = channel;
        if (ch != null && drainScheduled.compareAndSet(false, true)) {
            ch.eventLoop().execute(this::drain);
        }
    }

    // ---------------------------------------------------------------- event loop

    /** Sends queued completions as one batch, then asks for what the cache needs. Event loop only. */
    private void drain() {
        drainScheduled.set(false);
        List<Completion> batch = new ArrayList<>();
        for (Message m; (m = fromWorkers.poll()) != null; ) {
            switch (m) {
                case Message.Completed c -> {
                    for (Completion completion : c.completions()) {
                        batch.add(completion);
                        policy.recordTaskNanos(completion.execNanos());
                    }
                }
                default -> {
                    flushCompletions(batch);
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
        int starving = cache.starvingWorkers();
        int credit = policy.creditToRequest(starving, cache.size(), outstandingCredit);
        if (credit != 0 || starving != serverIdleEstimate) {
            outstandingCredit += credit;
            serverIdleEstimate = starving;
            if (credit > 0) {
                requestSentNanos = System.nanoTime();
            }
            channel.write(new Message.Request(credit, starving));
        }
    }

    private void failOver(List<String> candidates) {
        try {
            Channel next = WireClient.connectAny(group, candidates, hello(), this::attached, 30_000);
            next.eventLoop().execute(() -> {
                outstandingCredit = 0;
                serverIdleEstimate = -1;
                requestSentNanos = 0;
                failovers.incrementAndGet();
                drain();
            });
        } catch (IOException e) {
            if (!closing) {
                LOG.warn("producer {} found no server to fail over to: {}", config.name(), e.getMessage());
            }
            disconnected.complete(null);
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Messages from the server, on the event loop. */
    private final class Connection extends SimpleChannelInboundHandler<Message> {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel(); // messages may arrive before connect() returns
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            switch (msg) {
                case Message.Assign a -> onAssign(a.tasks());
                case Message.Drop d -> {
                    cache.drop(d.ids());
                    kept.drop(d.ids());
                }
                case Message.Keep k -> {
                    for (TaskEnvelope e : config.claim() ? k.tasks() : new TaskEnvelope[0]) {
                        kept.keep(e); // without claims nothing would run them, or ever let them go
                    }
                }
                case Message.Inputs in -> kept.forwarded(in.values());
                case Message.Unkeep u -> kept.drop(u.ids());
                case Message.Revoke r -> {
                    // Always answer: the server learns which copies had started and will not ask for them again.
                    List<TaskId> released = cache.drop(r.ids());
                    ctx.write(new Message.Released(released.toArray(TaskId[]::new)));
                }
                case Message.ComputationEnded e -> {
                    cache.dropComputation(e.computation());
                    kept.dropComputation(e.computation());
                    codecs.remove(e.computation());
                    parked.remove(e.computation());
                }
                case Message.Mirrors m -> mirrors = List.of(m.addresses());
                case Message.Code c -> onCode(c);
                case Message.BundleChunk c -> onChunk(c);
                case Message.NoBundle n -> noCode(n.bundle(), n.reason());
                case Message.Refused r -> LOG.warn("server refused this producer: {}", r.reason());
                default -> LOG.warn("ignoring unexpected {} from the server", msg.getClass().getSimpleName());
            }
        }

        /** Tasks of {@code c.computation()} run from bundle {@code c.bundle()}: bind it, or fetch it first. */
        private void onCode(Message.Code c) {
            if (codecs.bind(c.computation(), c.bundle())) {
                return;
            }
            parked.putIfAbsent(c.computation(), new ArrayList<>());
            List<Long> waiting = awaitingCode.computeIfAbsent(c.bundle(), h -> new ArrayList<>());
            waiting.add(c.computation());
            if (waiting.size() == 1) {
                channel.write(new Message.FetchBundle(c.bundle()));
                bundlesFetched.incrementAndGet();
            }
        }

        private void onChunk(Message.BundleChunk chunk) {
            String hash = chunk.bundle();
            if (!awaitingCode.containsKey(hash)) {
                return;
            }
            byte[] all;
            try {
                all = assemblies.computeIfAbsent(hash, BundleAssembly::new).addBytes(chunk);
            } catch (CodeBundle.InvalidBundleException e) {
                assemblies.remove(hash);
                noCode(hash, e.getMessage());
                return;
            }
            if (all == null) {
                return;
            }
            assemblies.remove(hash);
            // Hashing a large bundle takes a while: not on the event loop, which other producers may share.
            Channel ch = channel;
            java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
                CodeBundle bundle = null;
                String problem = null;
                try {
                    bundle = CodeBundle.verified(hash, all);
                } catch (CodeBundle.InvalidBundleException e) {
                    problem = e.getMessage();
                }
                CodeBundle verified = bundle;
                String why = problem;
                ch.eventLoop().execute(() -> {
                    if (channel != ch) {
                        return; // failed over meanwhile: the new server says again what is needed
                    }
                    if (verified != null) {
                        bundleArrived(verified);
                    } else {
                        noCode(hash, why);
                    }
                    drain();
                });
            });
        }

        private void bundleArrived(CodeBundle bundle) {
            List<Long> computations = awaitingCode.remove(bundle.hash());
            if (computations == null) {
                return;
            }
            List<ReadyTask> ready = new ArrayList<>();
            for (long computation : computations) {
                codecs.bind(computation, bundle);
                List<ReadyTask> tasks = parked.remove(computation);
                if (tasks != null) {
                    ready.addAll(tasks);
                }
            }
            awaitingCodeCount = countParked();
            decodeIntoCache(ready.toArray(ReadyTask[]::new));
        }

        /** Bundle {@code hash} cannot be had: every task waiting for it fails, saying why. */
        private void noCode(String hash, String reason) {
            List<Long> computations = awaitingCode.remove(hash);
            if (computations == null) {
                return;
            }
            for (long computation : computations) {
                List<ReadyTask> tasks = parked.remove(computation);
                for (ReadyTask t : tasks == null ? List.<ReadyTask>of() : tasks) {
                    tasksFailed.incrementAndGet();
                    channel.write(new Message.TaskFailed(t.task().id(), "producer " + config.name()
                            + " cannot load the code of task " + t.task().id() + ": " + reason));
                }
            }
            awaitingCodeCount = countParked();
        }

        private int countParked() {
            int n = 0;
            for (List<ReadyTask> tasks : parked.values()) {
                n += tasks.size();
            }
            return n;
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
                List<ReadyTask> waiting = parked.get(ready.task().id().computation());
                if (waiting != null) {
                    waiting.add(ready); // its code is on the way
                    awaitingCodeCount++;
                } else {
                    runnable.add(ready);
                }
            }
            decodeIntoCache(runnable.toArray(ReadyTask[]::new));
        }

        private void decodeIntoCache(ReadyTask[] tasks) {
            List<Task> decoded = new ArrayList<>(tasks.length);
            for (ReadyTask ready : tasks) {
                try {
                    decoded.add(TaskRunner.decode(codecs.forComputation(ready.task().id().computation()), ready));
                } catch (RuntimeException e) {
                    String reason = "cannot decode task " + ready.task().id() + " on producer " + config.name() + ": "
                            + e.getMessage();
                    LOG.info(reason);
                    tasksFailed.incrementAndGet();
                    channel.write(new Message.TaskFailed(ready.task().id(), reason));
                }
            }
            if (timeline.enabled()) {
                long now = System.nanoTime();
                for (Task t : decoded) {
                    timeline.cached(t.id(), now);
                }
            }
            cache.add(decoded);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            drain(); // also sends any completion whose worker found a task that had just arrived
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cache.clear(); // a task taken before this belongs to the server left: its completion is discarded
            kept.clear(); // the next server knows nothing of them
            parked.clear(); // the next server says again which code its tasks need
            awaitingCodeCount = 0;
            awaitingCode.clear();
            assemblies.clear();
            fromWorkers.clear();
            if (closing) {
                disconnected.complete(null);
                return;
            }
            List<String> candidates = new ArrayList<>(mirrors);
            if (candidates.isEmpty()) {
                LOG.warn("producer {} lost its server {}", config.name(), ctx.channel().remoteAddress());
                disconnected.complete(null);
                return;
            }
            java.util.Collections.shuffle(candidates); // spread the failed server's producers over its group
            LOG.info("producer {} lost its server {}; failing over to one of {}", config.name(),
                    ctx.channel().remoteAddress(), candidates);
            Thread t = new Thread(() -> failOver(candidates), config.name() + "-failover");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            String reason = cause.getMessage() == null ? cause.toString() : WireClient.reason(cause);
            LOG.warn("producer {}: closing connection to {}: {}", config.name(), config.server(), reason);
            ctx.close();
        }
    }
}
