package org.cx.consumer;

import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.api.Computation;
import org.cx.api.ComputationFailedException;
import org.cx.api.Continuation;
import org.cx.api.Diagnosis;
import org.cx.api.ResultListener;
import org.cx.api.ValueTask;
import org.cx.api.SharedData;
import org.cx.api.SubmitOptions;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.api.TaskServer;
import org.cx.api.spi.TaskBinding;
import org.cx.wire.BodyCodec;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.Sources;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.ValueStore;
import org.cx.wire.WireConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer connected to one task server. Thread-safe.
 *
 * <p>Callbacks ({@link ResultListener#processResult}, {@link ResultListener#processFailure}) and the completion of
 * each {@link Computation#result()} future, with whatever stages the application chained to it, run on the
 * callback executor, never on the connection's event loop: a slow or blocking listener delays other callbacks, not
 * the messages of other computations. By default that is one daemon thread per consumer, so callbacks run one at a
 * time in the order their outcomes arrived; {@link #connect(InetSocketAddress, Executor)} takes the application's own.
 *
 * <p>Its questions other than submissions wait in {@link Questions}. What stays here (about 690 lines) is the API's
 * overloads, the {@link Pending} handle applications hold, and the one connection handler with its fail-over, which
 * answer each other through the same maps of submissions and running computations.
 */
public final class Consumer implements TaskServer {
    private static final Logger LOG = LoggerFactory.getLogger(Consumer.class);

    private final EventLoopGroup group;
    private volatile Channel channel;
    private volatile boolean closing;
    /** Where to go if the server fails: its mirror group, as it last told us, lowest tree position first. */
    private volatile List<String> mirrors = List.of();
    private final String name;
    private final BodyCodecs codecs;
    /** Large results arrive here in chunks, ahead of the result that refers to them. */
    private final ValueStore values;
    /** This user's credential, or null for plain connections. */
    private final Tls tls;
    private final AtomicLong requestIds = new AtomicLong();
    /**
     * Shared data as it travels, by the {@link SharedData} it was made from (identity, weakly): packing and hashing a
     * large one takes about a second per GiB, and a second computation with the same data need not pay it again.
     */
    private final Map<SharedData, CodeBundle> dataBundles = java.util.Collections.synchronizedMap(
            new java.util.WeakHashMap<>());
    private final Map<Long, Pending<?>> submitting = new ConcurrentHashMap<>();
    private final Map<Long, Pending<?>> running = new ConcurrentHashMap<>();
    private final AtomicLong bundleUploads = new AtomicLong();
    /** Told the id of every computation the server accepts from this consumer (event loop). */
    private volatile java.util.function.LongConsumer onAccepted = id -> { };
    /** Options of submissions that name none ({@link #defaultOptions}). */
    private volatile SubmitOptions defaults = SubmitOptions.defaults();
    /** Questions to the server not answered yet, by computation (lists: by 0). */
    private final Questions<Void> cancels = new Questions<>(this::send);
    private final Questions<Void> prioritizations = new Questions<>(this::send);
    private final Questions<Diagnosis> diagnoses = new Questions<>(this::send);
    private final Questions<List<Diagnosis>> lists = new Questions<>(this::send);
    /** Orders submissions and uploads: an upload after a submission answers that submission's NeedBundle. */
    private final AtomicLong sends = new AtomicLong();
    /** Hash → when it was last uploaded, in {@link #sends} order. Event loop only. */
    private final Map<String, Long> uploadedAt = new java.util.HashMap<>();
    private final AtomicLong bundleBytesSent = new AtomicLong();
    /** Over the computations that succeeded: tasks and executions, from their summaries. */
    private final AtomicLong tasksDone = new AtomicLong();
    private final AtomicLong executionsDone = new AtomicLong();
    /** Where listeners and result futures are completed (see the class comment). */
    private final Executor callbacks;
    /** The default callback thread, shut down with the consumer; null when the application passed an executor. */
    private final ExecutorService ownCallbacks;

    private Consumer(InetSocketAddress server, String name, ClassLoader applicationClasses, Executor callbacks, Tls tls)
            throws IOException {
        this.tls = tls;
        this.values = ValueStore.temporary("consumer-" + name);
        this.codecs = new BodyCodecs(applicationClasses, 0, values); // the network keeps bundles; a consumer need not
        this.name = name;
        this.ownCallbacks = callbacks == null ? Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "cx-consumer-callbacks");
            t.setDaemon(true);
            return t;
        }) : null;
        this.callbacks = callbacks == null ? ownCallbacks : callbacks;
        this.group = EventLoops.create("cx-consumer-io", 1);
        try {
            this.channel = WireClient.connect(group, server, tls, hello(), this::attached, 10_000, values);
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            values.close();
            if (ownCallbacks != null) {
                ownCallbacks.shutdown();
            }
            throw e;
        }
    }

    private Message.Hello hello() {
        return new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.CONSUMER, name, 0);
    }

    /** Sends {@code m} to the server this consumer is connected to now. */
    private void send(Message m) {
        channel.writeAndFlush(m);
    }

    private Connection attached(Message.Welcome welcome) {
        mirrors = List.of(welcome.mirrors());
        return new Connection();
    }

    /**
     * Connects to the task server at {@code server} with this user's local credential ({@link CxHome#local});
     * application classes come from the caller's class loader.
     */
    public static Consumer connect(InetSocketAddress server) throws IOException {
        return connect(server, CxHome.local(CredentialRole.USER, false));
    }

    /** Connects to the task server at {@code server} with {@code tls} (a user's credential; null: plain). */
    public static Consumer connect(InetSocketAddress server, Tls tls) throws IOException {
        return new Consumer(server, "consumer", Thread.currentThread().getContextClassLoader(), null, tls);
    }

    /**
     * Connects to the task server at {@code server}; listeners and result futures are completed on {@code callbacks}
     * (which the application owns and shuts down).
     */
    public static Consumer connect(InetSocketAddress server, Executor callbacks) throws IOException {
        return new Consumer(server, "consumer", Thread.currentThread().getContextClassLoader(),
                java.util.Objects.requireNonNull(callbacks, "callbacks"), CxHome.local(CredentialRole.USER, false));
    }

    /** Connects to {@code HOST:PORT}. */
    public static Consumer connect(String hostPort) throws IOException {
        return connect(WireClient.parseAddress(hostPort));
    }

    /** Connects to {@code HOST:PORT} with {@code tls} (a user's credential; null: plain). */
    public static Consumer connect(String hostPort, Tls tls) throws IOException {
        return connect(WireClient.parseAddress(hostPort), tls);
    }

    /**
     * Connects to the first of {@code addresses} (HOST:PORT each) that accepts, with {@code tls}: for the members of a
     * network as its lookup service lists them ({@code Consumer.connect(Networks.members("host:4160", tls), tls)}),
     * where the first may be a dead server whose registration has not expired yet.
     */
    public static Consumer connect(List<String> addresses, Tls tls) throws IOException {
        if (addresses.isEmpty()) {
            throw new IOException("no server to connect to: the list of addresses is empty (is a server registered?)");
        }
        List<IOException> failures = new ArrayList<>();
        for (String address : addresses) {
            try {
                return connect(address, tls);
            } catch (IOException e) {
                LOG.info("cannot connect to {} ({}); trying the next server", address, e.getMessage());
                failures.add(e);
            }
        }
        IOException none = new IOException("no server of " + addresses + " accepted a connection (the last: "
                + failures.getLast().getMessage() + ")");
        failures.forEach(none::addSuppressed);
        throw none;
    }

    /** {@inheritDoc} The returned handle also gives the run's {@link Pending#summary()} once it is done. */
    @Override
    public <R> Pending<R> submit(Task root, ResultListener<? super R> listener) {
        return submit(root, defaults, listener);
    }

    /**
     * The options of submissions that name none (priority, timeout): e.g. those of an application run by
     * {@code cx submit --priority}. Its quorum and data are not used.
     */
    public void defaultOptions(SubmitOptions options) {
        this.defaults = options.withQuorum(1).withData(null);
    }

    /** {@inheritDoc} Owners are the producers' credential names. */
    @Override
    public <R> Pending<R> submit(Task root, int quorum, ResultListener<? super R> listener) {
        return submit(root, defaults.withQuorum(quorum), listener);
    }

    /** {@inheritDoc} */
    @Override
    public <R> Pending<R> submit(Task root, SharedData data, ResultListener<? super R> listener) {
        return submit(root, defaults.withData(data), listener);
    }

    /** {@inheritDoc} The returned handle also gives the run's {@link Pending#summary()} once it is done. */
    @Override
    public <R> Pending<R> submit(Task root, SubmitOptions options, ResultListener<? super R> listener) {
        CodeBundle data = options.data() == null ? null
                : dataBundles.computeIfAbsent(options.data(), d -> CodeBundle.ofEntries(new java.util.TreeMap<>(
                        d.entries())));
        long requestId = requestIds.incrementAndGet();
        Pending<R> pending = new Pending<>(listener, callbacks, this);
        // Classes loaded from a code bundle travel as that bundle; anything else runs from the class path.
        pending.loader = root.codeClass().getClassLoader() instanceof BundleClassLoader bundle ? bundle : null;
        // The root's id is not known until the server names the computation; encode it under a placeholder.
        if (pending.loader != null) {
            codecs.bind(-requestId, pending.loader);
        }
        BodyCodec codec = codec(-requestId);
        TaskBinding.bind(root, TaskId.root(0), Continuation.CONSUMER, null);
        TaskEnvelope envelope = new TaskEnvelope(TaskId.root(0), Continuation.CONSUMER, root.arity(), root.priority(),
                root.executeOnServer(), root.firstInputWins(),
                codec.encode(root, "root task " + root.getClass().getName()));
        pending.data = data;
        pending.submit = new Message.Submit(requestId, envelope, Sources.of(
                pending.loader == null ? CodeBundle.CLASS_PATH : pending.loader.bundle().hash(),
                data == null ? "" : data.hash()), options.quorum(), options.priority(),
                options.timeout() == null ? 0 : Math.max(1, options.timeout().toMillis()));
        submitting.put(requestId, pending);
        pending.sentAt = sends.incrementAndGet();
        channel.writeAndFlush(pending.submit).addListener(f -> {
            if (!f.isSuccess()) {
                submitting.remove(requestId);
                pending.fail(new ComputationFailedException(0, null, "could not submit: " + f.cause()));
            }
        });
        return pending;
    }

    /** A submitted computation's handle, with its summary once done. */
    @Override
    public <R> Pending<R> submit(Task root) {
        return submit(root, result -> { });
    }

    /** A submitted computation's handle, of the root's result type, with its summary once done. */
    @Override
    public <R> Pending<R> submit(ValueTask<R> root) {
        return submit(root, defaults, result -> { });
    }

    /** {@link #submit(Task)} for a root whose value is an {@code R}, running as {@code options} say. */
    @Override
    public <R> Pending<R> submit(ValueTask<R> root, SubmitOptions options) {
        return submit(root, options, result -> { });
    }

    /** {@link #submit(Task, int, ResultListener)} without a listener. */
    public <R> Pending<R> submitValidated(Task root, int quorum) {
        return submit(root, quorum, result -> { });
    }

    /**
     * Asks the server where computation {@code computationId} stands (see {@link Diagnosis}); completes
     * exceptionally if the server does not know it, or it is another user's.
     */
    public CompletableFuture<Diagnosis> diagnose(long computationId) {
        return diagnoses.ask(computationId, new Message.Diagnose(computationId));
    }

    /**
     * This user's computations that the server delivers (submitted to it, or taken over from a failed server),
     * running or with a result not collected yet, oldest first.
     */
    public CompletableFuture<List<Diagnosis>> computations() {
        return lists.ask(0L, new Message.ListComputations());
    }

    /**
     * Gives computation {@code computationId} a new priority among this user's computations (see
     * {@link Computation#changePriority}); it may have been submitted by another connection of the same user.
     */
    public CompletableFuture<Void> changePriority(long computationId, int priority) {
        return prioritizations.ask(computationId, new Message.Prioritize(computationId, priority));
    }

    /**
     * Waits for the outcome of computation {@code computationId} without collecting it: the server keeps its
     * result for a later {@link #collect} (until its retention ends).
     */
    public <R> Pending<R> watch(long computationId) {
        return follow(computationId, result -> { }, true);
    }

    /** Calls {@code listener} with the id of each computation the server accepts from now on, as it does. */
    public void onAccepted(java.util.function.LongConsumer listener) {
        this.onAccepted = listener;
    }

    /** The computations submitted or collected through this consumer whose outcome has not arrived. */
    public java.util.Set<Long> runningComputations() {
        return java.util.Set.copyOf(running.keySet());
    }

    /**
     * Cancels computation {@code computationId} (see {@link Computation#cancel()}); it may have been submitted by
     * another connection of the same user.
     */
    public CompletableFuture<Void> cancel(long computationId) {
        return cancels.ask(computationId, new Message.Cancel(computationId));
    }

    @Override
    public <R> Pending<R> collect(long computationId, ResultListener<? super R> listener) {
        return follow(computationId, listener, false);
    }

    /** Asks for computation {@code computationId}'s outcome; with {@code keep}, the server keeps it after. */
    private <R> Pending<R> follow(long computationId, ResultListener<? super R> listener, boolean keep) {
        Pending<R> pending = new Pending<>(listener, callbacks, this);
        pending.keep = keep;
        pending.id.complete(computationId);
        running.put(computationId, pending);
        channel.writeAndFlush(new Message.Collect(computationId, keep));
        return pending;
    }

    /**
     * Cuts the connection abruptly, as a network failure would: the consumer then asks the same server again, then
     * its mirror group, for its running computations.
     */
    public void cutConnection() {
        channel.close();
    }

    @Override
    public void close() {
        closing = true;
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        values.close();
        if (ownCallbacks != null) {
            ownCallbacks.shutdown(); // callbacks already queued still run
        }
    }

    /** Code bundles this consumer uploaded (a server asks only for a bundle it does not have). */
    public long bundleUploads() {
        return bundleUploads.get();
    }

    /** Bytes of code bundles this consumer sent. */
    public long bundleBytesSent() {
        return bundleBytesSent.get();
    }

    /** Tasks of the computations this consumer submitted that succeeded, over the whole network. */
    public long tasksCompleted() {
        return tasksDone.get();
    }

    /** Executions of those tasks, duplicates included. */
    public long executions() {
        return executionsDone.get();
    }

    private BodyCodec codec(long computation) {
        return codecs.forComputation(computation);
    }

    /** Per-computation summary of what the run cost, as reported by the server. */
    public record Summary(long tasks, long executions, long t1Nanos, long wallNanos) {
    }

    /** A submitted computation, waiting for its id and then its result. */
    public static final class Pending<R> implements Computation<R> {
        private final ResultListener<? super R> listener;
        private final CompletableFuture<Long> id = new CompletableFuture<>();
        private final CompletableFuture<R> result = new CompletableFuture<>();
        private volatile Summary summary;
        /** The submission, kept until accepted: sent again after its bundle was uploaded. */
        private volatile Message.Submit submit;
        /** When the submission was sent, in {@link #sends} order. */
        private volatile long sentAt;
        /** Where the root's classes came from, if from a code bundle. */
        private volatile BundleClassLoader loader;
        /** Its shared data, if any. */
        private volatile CodeBundle data;
        /** Whether the server keeps its outcome once told it (a watch, not a collection). */
        private volatile boolean keep;

        private final Executor callbacks;
        /** The consumer that submitted it, to ask its server about it. */
        private final Consumer consumer;

        Pending(ResultListener<? super R> listener, Executor callbacks, Consumer consumer) {
            this.listener = listener;
            this.callbacks = callbacks;
            this.consumer = consumer;
        }

        @Override
        public CompletableFuture<Diagnosis> diagnose() {
            return id.thenCompose(consumer::diagnose);
        }

        @Override
        public CompletableFuture<Void> cancel() {
            return id.thenCompose(consumer::cancel);
        }

        @Override
        public CompletableFuture<Void> changePriority(int priority) {
            return id.thenCompose(computation -> consumer.changePriority(computation, priority));
        }

        /** Blocks until the server has accepted the submission (normally one round trip). */
        @Override
        public long id() {
            try {
                return id.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new ComputationFailedException(0, null, "the server did not accept the computation: " + e);
            }
        }

        @Override
        public CompletableFuture<R> result() {
            return result;
        }

        /** What the run cost, once the result is in; null before. */
        public Summary summary() {
            return summary;
        }

        @SuppressWarnings("unchecked")
        void succeed(Object value, Summary s) {
            summary = s;
            callBack(() -> {
                try {
                    listener.processResult((R) value);
                } catch (RuntimeException e) {
                    LOG.warn("processResult threw", e);
                }
                result.complete((R) value);
            });
        }

        void fail(ComputationFailedException e) {
            id.complete(e.computation());
            callBack(() -> {
                try {
                    listener.processFailure(e);
                } catch (RuntimeException ex) {
                    LOG.warn("processFailure threw", ex);
                }
                result.completeExceptionally(e);
            });
        }

        /** Runs an outcome's callbacks on the executor, or here if it no longer takes work (the consumer closed). */
        private void callBack(Runnable outcome) {
            try {
                callbacks.execute(outcome);
            } catch (RejectedExecutionException closed) {
                outcome.run();
            }
        }
    }

    /** Completes the futures waiting for a diagnosis of {@code d}'s computation. */
    private void answer(Message.Diagnosis d) {
        if (d.phase().isEmpty()) {
            diagnoses.fail(d.computation(), new ComputationFailedException(d.computation(), null, "no computation "
                    + Long.toHexString(d.computation()) + " of this user on the server "
                    + WireClient.hostPort(WireClient.serverAddress(channel))));
        } else {
            diagnoses.answer(d.computation(), d.toApi());
        }
    }

    /** Completes the futures waiting for {@code computation}'s answer: with null, or failed with {@code refusal}. */
    private static void answer(Questions<Void> questions, long computation, String refusal) {
        if (refusal.isEmpty()) {
            questions.answer(computation, null);
        } else {
            questions.fail(computation, new ComputationFailedException(computation, null, refusal));
        }
    }

    private final class Connection extends SimpleChannelInboundHandler<Message> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            switch (msg) {
                case Message.Accepted a -> {
                    Pending<?> p = submitting.remove(a.requestId());
                    if (p != null) {
                        if (p.loader != null) {
                            codecs.bind(a.computation(), p.loader);
                            codecs.remove(-a.requestId());
                        }
                        running.put(a.computation(), p);
                        p.id.complete(a.computation());
                        onAccepted.accept(a.computation());
                    }
                }
                case Message.NeedBundle n -> upload(ctx, n);
                case Message.SubmitRefused r -> {
                    Pending<?> p = submitting.remove(r.requestId());
                    if (p != null) {
                        codecs.remove(-r.requestId());
                        p.fail(new ComputationFailedException(0, null, "the task server refused the computation: "
                                + r.reason()));
                    }
                }
                case Message.Result r -> {
                    Pending<?> p = running.remove(r.computation());
                    if (p == null) {
                        return;
                    }
                    Object value;
                    try {
                        value = codec(r.computation()).decode(r.value());
                    } catch (RuntimeException e) {
                        p.fail(new ComputationFailedException(r.computation(), null,
                                "the result does not decode here: " + e.getMessage()));
                        return;
                    }
                    codecs.remove(r.computation());
                    values.drop(r.computation());
                    if (!p.keep) {
                        ctx.writeAndFlush(new Message.Collected(r.computation()));
                    }
                    tasksDone.addAndGet(r.tasks());
                    executionsDone.addAndGet(r.executions());
                    p.succeed(value, new Summary(r.tasks(), r.executions(), r.t1Nanos(), r.wallNanos()));
                }
                case Message.Failed f -> {
                    if (f.taskId().isEmpty() && recollect(f.computation())) {
                        return; // the server that takes over from a failed one may not have its copy yet
                    }
                    if (f.taskId().isEmpty() && f.reason().startsWith("cancelled")) {
                        // Answers a cancellation at once: whoever waits on the result may close the connection
                        // before the server's CancelAnswer, which follows, is read.
                        cancels.answer(f.computation(), null);
                    }
                    Pending<?> p = running.remove(f.computation());
                    if (p != null) {
                        codecs.remove(f.computation());
                        if (!p.keep) {
                            ctx.writeAndFlush(new Message.Collected(f.computation()));
                        }
                        p.fail(new ComputationFailedException(f.computation(), f.taskId().isEmpty() ? null : f.taskId(),
                                f.taskId().isEmpty() ? f.reason() : "task " + f.taskId() + " failed: " + f.reason()));
                    }
                }
                case Message.Diagnosis d -> answer(d);
                case Message.CancelAnswer a -> {
                    if (!a.refusal().startsWith("no computation") || !recancel(a.computation())) {
                        answer(cancels, a.computation(), a.refusal());
                    }
                }
                case Message.Prioritized a -> answer(prioritizations, a.computation(), a.refusal());
                case Message.ComputationList l -> lists.answer(0L,
                        java.util.Arrays.stream(l.computations()).map(Message.Diagnosis::toApi).toList());
                case Message.Mirrors m -> mirrors = List.of(m.addresses());
                case Message.Refused r -> LOG.warn("server refused this consumer: {}", r.reason());
                default -> LOG.warn("ignoring unexpected {} from the server", msg.getClass().getSimpleName());
            }
        }

        /** The server lacks a submission's bundle: send it (once per server), then the submission again. */
        private void upload(ChannelHandlerContext ctx, Message.NeedBundle need) {
            Pending<?> p = submitting.get(need.requestId());
            CodeBundle needed = p == null ? null
                    : p.loader != null && p.loader.bundle().hash().equals(need.bundle()) ? p.loader.bundle()
                    : p.data != null && p.data.hash().equals(need.bundle()) ? p.data : null;
            if (needed == null) {
                LOG.warn("the server asked for bundle {} that no submission of this consumer uses",
                        CodeBundle.shortHash(need.bundle()));
                return;
            }
            // Submissions sent together each hear NeedBundle; one upload after them answers all.
            Long lastUpload = uploadedAt.get(need.bundle());
            if (lastUpload == null || lastUpload < p.sentAt) {
                for (Message.BundleChunk chunk : BundleAssembly.chunks(needed.signedAs(tls))) {
                    ctx.write(chunk);
                    bundleBytesSent.addAndGet(chunk.data().length);
                }
                bundleUploads.incrementAndGet();
                uploadedAt.put(need.bundle(), sends.incrementAndGet());
            }
            ctx.writeAndFlush(p.submit);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            uploadedAt.clear(); // the next server has its own bundles
            // A submission without an answer may or may not have reached the mirrors: it cannot be recovered.
            ComputationFailedException unsure = new ComputationFailedException(0, null,
                    "connection to the task server lost before it accepted the computation; submit it again");
            submitting.values().forEach(p -> p.fail(unsure));
            submitting.clear();
            ComputationFailedException noAnswer = new ComputationFailedException(0, null,
                    "connection to the task server lost before it answered; ask again");
            for (Questions<?> questions : List.of(prioritizations, diagnoses, lists)) {
                questions.failAll(noAnswer);
            }
            // The connection may have broken while its server lives on: ask there first, then its mirrors.
            List<String> candidates = new ArrayList<>();
            if (WireClient.serverAddress(ctx.channel()) instanceof InetSocketAddress lost) {
                candidates.add(WireClient.hostPort(lost));
            }
            candidates.addAll(mirrors);
            if (closing || mirrors.isEmpty() || running.isEmpty()) {
                failRunning();
                cancels.failAll(noAnswer);
                return;
            }
            // Cancellations not answered are sent again to the server that takes over.
            LOG.info("consumer lost its server {}; collecting {} computation(s) from {}",
                    WireClient.hostPort(WireClient.serverAddress(ctx.channel())), running.size(), candidates);
            failoverDeadline = System.nanoTime() + FAILOVER_NANOS;
            Thread t = new Thread(() -> failOver(candidates), "cx-consumer-failover");
            t.setDaemon(true);
            t.start();
        }
    }

    private static final long FAILOVER_NANOS = TimeUnit.SECONDS.toNanos(30);
    private volatile long failoverDeadline;

    private void failOver(List<String> candidates) {
        try {
            channel = WireClient.connectAny(group, candidates, tls, hello(), this::attached, 30_000, values);
            running.forEach((id, p) -> channel.write(new Message.Collect(id, p.keep)));
            cancels.asked().forEach(id -> channel.write(new Message.Cancel(id)));
            channel.flush();
        } catch (IOException e) {
            LOG.warn("consumer found no server to fail over to: {}", e.getMessage());
            failRunning();
            cancels.failAll(new ComputationFailedException(0, null, "no task server to cancel it on: " + e));
        }
    }

    /** During a fail-over, asks again a little later for a computation the new server does not know yet. */
    private boolean recollect(long computation) {
        Pending<?> p = running.get(computation);
        if (System.nanoTime() > failoverDeadline || p == null) {
            return false;
        }
        group.schedule(() -> channel.writeAndFlush(new Message.Collect(computation, p.keep)), 100,
                TimeUnit.MILLISECONDS);
        return true;
    }

    /** During a fail-over, asks again a little later to cancel a computation the new server does not know yet. */
    private boolean recancel(long computation) {
        if (System.nanoTime() > failoverDeadline || !running.containsKey(computation)) {
            return false;
        }
        group.schedule(() -> channel.writeAndFlush(new Message.Cancel(computation)), 100, TimeUnit.MILLISECONDS);
        return true;
    }

    private void failRunning() {
        ComputationFailedException lost = new ComputationFailedException(0, null,
                "connection to the task server lost; collect the result later with its computation id");
        running.values().forEach(p -> p.fail(lost));
        running.clear();
    }
}
