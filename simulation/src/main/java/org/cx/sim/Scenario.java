package org.cx.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.cx.examples.fib.Fib;
import org.cx.wire.BodyCodec;
import org.cx.wire.BodyCodecs;

/**
 * One simulated run, all decided by its seed: a network of task servers forms, producers attach, a consumer
 * submits a Fibonacci computation and a {@link Spread} computation (and one it cancels), and faults strike while they
 * run; then the run's invariants are checked. Server faults come one at a time, each once the network again
 * tolerates a failure, as the network promises to survive.
 *
 * <p>Over 500 lines because a run's shape, its plan of faults and the checks that read the whole network at the end
 * are one story told in order; the checks made as it goes are in {@link Audit}.
 */
public final class Scenario {
    private static final long MS = 1_000_000L;
    /** Past this virtual time after the computations start, whatever has not finished counts as lost. */
    private static final long RUN_LIMIT_NANOS = 120_000 * MS;
    /** How long after the last fault the network may take to tolerate another failure again. */
    private static final long SETTLE_LIMIT_NANOS = 30_000 * MS;

    /**
     * What the run is made of. {@code wideCuts}: the primary root may be cut from up to three servers at once, that
     * many failures from where it stands, beyond what the network survives (the checks then report lost state).
     * {@code freezeMidCommit}: every server fault is a freeze, which strikes not at a random moment but as the server
     * sends its mirrors a batch that applies a completion, before their acknowledgements come back (the moment its
     * outputs are held). {@code claims}: two in three producers, drawn, claim and keep tasks as {@code cx producer}
     * does; otherwise none does. {@code stragglers}: one task run in 50 takes 30 times as long (a slowed or
     * descheduled machine), long enough for servers to hand out eager copies of it, and a producer fault may be a
     * freeze of 0.1–3 s. {@code longCuts}: a cut lasts 0.1–5 s, long enough for a server cut off from the root to
     * stop by itself; otherwise at most 2.5 s. {@code valuesByReference}: the spread's values over
     * {@link #VALUE_INLINE_BYTES} travel by reference, in chunks, as large values do in {@code cx}; otherwise inline.
     * {@code cancel}: the consumer also submits F(n + 2) and cancels it 20–400 ms after it is accepted.
     * {@code consumerAnywhere}: the consumer attaches to a server drawn apart from the plan, so that its
     * computations' origin may fail while the root lives, and a second consumer attaches to another drawn server and
     * submits an F(n) of its own; otherwise one consumer, on the primary root.
     */
    public record Shape(int servers, int producers, int workers, int fib, int spreadDepth, int maxFaults,
                        boolean wideCuts, boolean freezeMidCommit, boolean claims,
                        boolean stragglers, boolean longCuts, boolean valuesByReference, boolean cancel,
                        boolean consumerAnywhere) {
        /**
         * The default: 7 servers, 6 producers of 2 workers (two in three of them claiming), F(12), a spread of depth
         * 4, up to 3 faults, stragglers, long cuts, values by reference, a cancelled F(14), consumers on any
         * servers.
         */
        public static Shape defaults() {
            return new Shape(7, 6, 2, 12, 4, 3, false, false, true, true, true, true, true, true);
        }

        /** The same with up to {@code faults} faults. */
        public Shape withFaults(int faults) {
            return new Shape(servers, producers, workers, fib, spreadDepth, faults, wideCuts, freezeMidCommit, claims,
                    stragglers, longCuts, valuesByReference, cancel, consumerAnywhere);
        }

        /** The same with every server fault a freeze as the server mirrors a completion. */
        public Shape freezingMidCommit() {
            return new Shape(servers, producers, workers, fib, spreadDepth, maxFaults, wideCuts, true, claims,
                    stragglers, longCuts, valuesByReference, cancel, consumerAnywhere);
        }

        /** The same with the consumer on the primary root, as the seeds ran before it could be anywhere. */
        public Shape withTheConsumerAtTheRoot() {
            return new Shape(servers, producers, workers, fib, spreadDepth, maxFaults, wideCuts, freezeMidCommit,
                    claims, stragglers, longCuts, valuesByReference, cancel, false);
        }

        /**
         * The same as the first seeds ran: no producer claims, straggles or freezes, cuts last at most 2.5 s,
         * every value travels inline, nothing is cancelled, and the consumer is on the primary root.
         */
        public Shape asTheFirstSeedsRan() {
            return new Shape(servers, producers, workers, fib, spreadDepth, maxFaults, wideCuts, freezeMidCommit,
                    false, false, false, false, false, false);
        }
    }

    /**
     * With values by reference, values encoded larger than this (about half of the spread's, which are 1–507 bytes)
     * travel by reference, as those over 1 MiB do in {@code cx}.
     */
    static final long VALUE_INLINE_BYTES = 200;

    /** What a run found. */
    public record Result(long seed, List<String> violations, List<String> faults, long eventsRun, long virtualNanos,
                         long traceHash) {
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final long seed;
    private final Shape shape;
    private final World world;
    /**
     * What the run is made of and which faults strike when: drawn apart from the world's randomness (message delays,
     * task times), so that a seed keeps its plan when the code it runs changes.
     */
    private final SplittableRandom plan;
    private final java.nio.file.Path trails;
    private final Audit audit = new Audit();
    /** The codec of nodes without a value store: every value inline. */
    private static final BodyCodec INLINE = new BodyCodecs(Scenario.class.getClassLoader()).forComputation(0);
    private final List<SimServer> servers = new ArrayList<>();
    private final List<SimProducer> producers = new ArrayList<>();
    private final List<String> faults = new ArrayList<>();
    private SimConsumer consumer;
    /** Every consumer: {@link #consumer}, and a second one on another server when the consumer may be anywhere. */
    private final List<SimConsumer> consumers = new ArrayList<>();
    /**
     * How long after a crash or a lost link before another server fault may strike: the network hears of either by
     * the reset, which takes a message delay (up to 50 ms) to arrive; until then it would still count as tolerant.
     */
    private static final long NOTICED_NANOS = 100 * MS;
    /**
     * How soon after its tasks were taken over a server must stop: declared failed after a timeout of silence, it
     * stops by itself after two (checked every 100 ms heartbeat), or on hearing of it (a message delay, up to 50 ms).
     */
    private static final long REPLACED_STOPS_NANOS = 1_200 * MS;
    /** No server fault starts before this: the previous one has ended. */
    private long serverFaultFreeAt;
    private long quietAt;
    private final List<Scripted> scripted = new ArrayList<>();

    /** A fault of a test's choosing. */
    private record Scripted(long delayMs, Runnable fault) {
    }

    public Scenario(long seed, Shape shape, PrintStream trace) {
        this(seed, shape, trace, null);
    }

    /** @param trails a directory for each server's commit log and audit trail, or null for none */
    public Scenario(long seed, Shape shape, PrintStream trace, java.nio.file.Path trails) {
        this.seed = seed;
        this.shape = shape;
        this.world = new World(seed, 2_000, shape.valuesByReference() ? VALUE_INLINE_BYTES : 0, new Trace(trace));
        this.trails = trails;
        this.plan = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
    }

    public static Result run(long seed, Shape shape, PrintStream trace) {
        return new Scenario(seed, shape, trace).run();
    }

    /** A fault of a test's choosing, {@code delayMs} after the computations start, besides the drawn ones. */
    Scenario scripted(long delayMs, Runnable fault) {
        scripted.add(new Scripted(delayMs, fault));
        return this;
    }

    /** Crash-stops the servers named at once (for scripted faults beyond what the network survives). */
    void crashServers(String... names) {
        for (String name : names) {
            servers.stream().filter(s -> s.name.equals(name)).forEach(s -> {
                note("crash " + s.name);
                s.crash();
            });
        }
    }

    Result run() {
        List<String> addresses = new ArrayList<>();
        for (int i = 1; i <= shape.servers(); i++) {
            String name = "s" + i;
            // Every other seed, prefetch gives way to a favoured computation as beside a large one (decision 0026).
            SimServer s = new SimServer(world, name, i == 1 ? null : "s1:7000", plan.nextLong(), audit, trails,
                    (seed & 1) == 0);
            servers.add(s);
            addresses.add(s.address);
            world.at(i == 1 ? 0 : plan.nextLong(1, 100) * MS, null, s::start);
        }
        boolean formed = world.runUntil(() -> root() != null && root().core.networkView().servers() == shape.servers()
                && root().core.tolerant(), 30_000 * MS);
        if (!formed) {
            audit.violations.add("the network of " + shape.servers() + " servers did not form in 30 s");
            return result();
        }
        long start = world.now();
        world.trace("network formed");
        startWork(addresses);
        planFaults(start);
        boolean finished = world.runUntil(() -> consumers.stream().allMatch(SimConsumer::allDone),
                start + RUN_LIMIT_NANOS);
        return finish(finished);
    }

    /** Producers attach to random servers; the consumer submits F(n) and a spread. */
    private void startWork(List<String> addresses) {
        for (int i = 1; i <= shape.producers(); i++) {
            SimProducer p = newProducer("p" + i, addresses);
            world.after(plan.nextLong(0, 50) * MS, p, () -> p.start(randomAlive().address));
        }
        consumer = new SimConsumer(world, "c1", addresses, audit);
        consumers.add(consumer);
        consumer.plan(shape.cancel() ? 3 : 2);
        if (shape.consumerAnywhere()) {
            // Drawn apart from the plan, which keeps its faults: where each consumer attaches, and when the second
            // one submits its F(n).
            SplittableRandom where = new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL);
            consumer.connect(addresses.get(where.nextInt(addresses.size())));
            SimConsumer second = new SimConsumer(world, "c2", addresses, audit);
            consumers.add(second);
            second.plan(1);
            second.connect(addresses.get(where.nextInt(addresses.size())));
            world.after(where.nextLong(0, 300) * MS, second, () -> second.submit(new SimConsumer.Job(
                    "F(" + shape.fib() + ") of c2", () -> new Fib(shape.fib()), Fib.value(shape.fib()),
                    Fib.taskCount(shape.fib()))));
        } else {
            consumer.connect(root().address);
        }
        long key = plan.nextLong();
        world.after(plan.nextLong(0, 20) * MS, consumer, () -> consumer.submit(new SimConsumer.Job(
                "F(" + shape.fib() + ")", () -> new Fib(shape.fib()), Fib.value(shape.fib()),
                Fib.taskCount(shape.fib()))));
        world.after(plan.nextLong(0, 300) * MS, consumer, () -> consumer.submit(new SimConsumer.Job(
                "spread(" + Long.toHexString(key) + ", " + shape.spreadDepth() + ")",
                () -> new Spread(key, shape.spreadDepth()), Spread.expected(key, shape.spreadDepth()),
                Spread.taskCount(key, shape.spreadDepth()))));
        if (shape.cancel()) {
            // Drawn apart from the plan, which keeps its faults: when to submit it, and when to cancel it.
            SplittableRandom cancels = new SplittableRandom(seed ^ 0x5DEECE66DL);
            int n = shape.fib() + 2;
            long cancelAfter = cancels.nextLong(20, 400) * MS;
            world.after(cancels.nextLong(0, 300) * MS, consumer, () -> consumer.submit(new SimConsumer.Job(
                    "F(" + n + "), cancelled", () -> new Fib(n), Fib.value(n), Fib.taskCount(n), cancelAfter)));
        }
    }

    /** The faults drawn for this seed, and any scripted ones, from {@code start} on. */
    private void planFaults(long start) {
        int faultCount = shape.maxFaults() == 0 ? 0 : plan.nextInt(shape.maxFaults() + 1);
        serverFaultFreeAt = start;
        quietAt = start;
        for (int i = 0; i < faultCount; i++) {
            world.at(start + plan.nextLong(0, 1_000) * MS, null, this::strike);
        }
        for (Scripted s : scripted) {
            world.at(start + s.delayMs() * MS, null, s.fault());
        }
    }

    /** The codec of {@code node}: values over the inline limit go into its store, if it has one. */
    static BodyCodec codecOf(Node node) {
        return node.values() == null ? INLINE : new BodyCodecs(Scenario.class.getClassLoader(),
                BodyCodecs.KEEP_UNUSED_BYTES, node.values()).forComputation(0);
    }

    /** The checks after the computations: results, then whether the network tolerates a failure again. */
    private Result finish(boolean finished) {
        List<String> violations = audit.violations;
        if (!finished) {
            violations.add("computations not finished " + RUN_LIMIT_NANOS / 1_000_000_000 + " s after they started: "
                    + describeUnfinished());
        }
        checkResults();
        audit.checkRuns();
        long settleFrom = Math.max(world.now(), quietAt);
        boolean tolerant = world.runUntil(() -> world.now() >= quietAt && rootTolerant(),
                settleFrom + SETTLE_LIMIT_NANOS);
        if (!tolerant && aliveServers().size() > 1) {
            violations.add("the network did not tolerate another failure again within "
                    + SETTLE_LIMIT_NANOS / 1_000_000_000 + " s of the last fault");
        }
        checkReplacedServersStop();
        return result();
    }

    /**
     * A server whose tasks were taken over must stop soon after (it was declared failed; its producers and consumers
     * belong on a live server): once it hears so (it was frozen or cut off, and resumed or the cut healed), or by
     * itself once cut off from the root for two failure timeouts.
     */
    private void checkReplacedServersStop() {
        for (SimServer s : servers) {
            Long adopted = audit.adoptedAt(s.core.id());
            if (adopted == null || s.frozen()) {
                continue; // a frozen server stops once it resumes
            }
            long by = Math.max(adopted, s.resumedAt) + REPLACED_STOPS_NANOS;
            long stopped = Math.min(s.stoppedAt, world.now());
            if (stopped > by) {
                audit.violations.add(s.name + " (server " + s.core.id() + ") went on serving after its tasks were "
                        + "taken over at " + Audit.ms(adopted) + ": " + (s.serving() ? "it still serves at the end"
                        : "it stopped at " + Audit.ms(stopped)));
            }
        }
    }

    private Result result() {
        return new Result(seed, List.copyOf(audit.violations), List.copyOf(faults), world.eventsRun(), world.now(),
                world.traceHash());
    }

    private SimProducer newProducer(String name, List<String> addresses) {
        long min = plan.nextLong(1, 5) * MS;
        SimProducer p = new SimProducer(world, name, shape.workers(), addresses, min, min * 3,
                shape.claims(), shape.stragglers(), audit);
        producers.add(p);
        return p;
    }

    // ---------------------------------------------------------------- faults

    private void strike() {
        int kind = plan.nextInt(8);
        switch (kind) {
            case 0, 1, 2, 3 -> serverFault(shape.freezeMidCommit() ? 1 : kind);
            case 4 -> resetClientConnection();
            case 5, 6 -> {
                if (shape.stragglers() && plan.nextInt(4) == 0) {
                    producerFreezes();
                } else {
                    producerGoes(kind == 5);
                }
            }
            default -> {
                SimProducer p = newProducer("p" + (producers.size() + 1), addressesOf(servers));
                note(p.name + " joins");
                p.start(randomAlive().address);
            }
        }
    }

    /**
     * Crash-stop, freeze, cut off from some neighbours, or lose a connection to another server (which the network
     * counts as a failure at once): one server at a time, once the network is tolerant.
     */
    private void serverFault(int kind) {
        if (world.now() < serverFaultFreeAt || !rootTolerant() || aliveServers().size() < 3) {
            if (world.now() < quietAt + 5_000 * MS) {
                world.after(100 * MS, null, () -> serverFault(kind)); // wait for the network to be whole again
            }
            return;
        }
        SimServer s = randomAlive();
        switch (kind) {
            case 0 -> {
                note("crash " + s.name);
                s.crash();
                serverFaultFreeAt = world.now() + NOTICED_NANOS;
            }
            case 1 -> {
                long pause = plan.nextLong(100, 3_000) * MS;
                serverFaultFreeAt = world.now() + pause + 5_000 * MS; // until it strikes, no other server fault
                if (shape.freezeMidCommit()) {
                    world.onSent((node, burst) -> {
                        if (node == s && !s.crashed() && !s.frozen() && appliesACompletion(burst)) {
                            world.onSent((n, b) -> { });
                            note("freeze " + s.name + " for " + pause / MS + " ms as it mirrors a completion");
                            s.freeze();
                            audit.frozen(null, world.now(), world.now() + pause);
                            world.after(pause, null, s::resume);
                            serverFaultFreeAt = world.now() + pause;
                            quietAt = Math.max(quietAt, serverFaultFreeAt);
                        }
                    });
                    return;
                }
                note("freeze " + s.name + " for " + pause / MS + " ms");
                s.freeze();
                audit.frozen(null, world.now(), world.now() + pause);
                world.after(pause, null, s::resume);
                serverFaultFreeAt = world.now() + pause;
            }
            case 3 -> {
                List<Pipe.End> links = s.ends.stream().filter(e -> e.peer.owner instanceof SimServer).toList();
                if (!links.isEmpty()) {
                    Pipe.End end = links.get(plan.nextInt(links.size()));
                    note("reset the connection " + end.owner.name + "-" + end);
                    end.reset();
                }
                serverFaultFreeAt = world.now() + NOTICED_NANOS;
            }
            default -> {
                List<SimServer> others = new ArrayList<>(aliveServers());
                others.remove(s);
                // The primary root cut off from two servers or more is that many failures at once from where it
                // stands, more than the network survives: it is cut from one at most.
                int most = s.core.networkView().position() == 0 && !shape.wideCuts() ? 1 : 3;
                int n = 1 + plan.nextInt(Math.min(most, others.size()));
                long heal = world.now() + plan.nextLong(100, shape.longCuts() ? 5_000 : 2_500) * MS;
                List<String> names = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    SimServer o = others.remove(plan.nextInt(others.size()));
                    world.cut(s, o, heal);
                    names.add(o.name);
                }
                note("cut " + s.name + " from " + names + " for " + (heal - world.now()) / MS + " ms");
                audit.cut(world.now(), heal);
                serverFaultFreeAt = heal;
            }
        }
        quietAt = Math.max(quietAt, serverFaultFreeAt);
    }

    /** Whether {@code burst} holds a mirror batch that removes a task (a completion, or a task moving away). */
    private static boolean appliesACompletion(List<org.cx.wire.Message> burst) {
        for (org.cx.wire.Message m : burst) {
            if (m instanceof org.cx.wire.Message.Mirror mirror && !mirror.snapshot()) {
                for (org.cx.wire.MirrorOp op : mirror.ops()) {
                    if (op instanceof org.cx.wire.MirrorOp.Remove) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Loses a connection between a server and a producer or consumer. */
    private void resetClientConnection() {
        List<Pipe.End> ends = new ArrayList<>();
        for (SimServer s : aliveServers()) {
            s.ends.stream().filter(e -> !(e.peer.owner instanceof SimServer)).forEach(ends::add);
        }
        if (ends.isEmpty()) {
            return;
        }
        Pipe.End end = ends.get(plan.nextInt(ends.size()));
        note("reset the connection " + end.owner.name + "-" + end);
        end.reset();
    }

    /** A producer's machine sleeps for a while (a laptop's lid, SIGSTOP), holding its connection and its tasks. */
    private void producerFreezes() {
        List<SimProducer> present = producers.stream().filter(p -> !p.crashed() && !p.left() && !p.frozen()).toList();
        if (present.isEmpty()) {
            return;
        }
        SimProducer p = present.get(plan.nextInt(present.size()));
        long pause = plan.nextLong(100, 3_000) * MS;
        note("freeze " + p.name + " for " + pause / MS + " ms");
        p.freeze();
        audit.frozen(p.name, world.now(), world.now() + pause);
        world.after(pause, null, p::resume);
    }

    private void producerGoes(boolean crash) {
        List<SimProducer> present = producers.stream().filter(p -> !p.crashed() && !p.left()).toList();
        if (present.size() < 2) {
            return;
        }
        SimProducer p = present.get(plan.nextInt(present.size()));
        note((crash ? "crash " : "") + p.name + (crash ? "" : " leaves"));
        if (crash) {
            p.crash();
        } else {
            p.leave();
        }
    }

    private void note(String fault) {
        faults.add(String.format("%.1f ms: %s", world.now() / 1e6, fault));
        world.trace("FAULT " + fault);
    }

    // ---------------------------------------------------------------- the network as a whole

    private List<SimServer> aliveServers() {
        return servers.stream().filter(SimServer::serving).toList();
    }

    private SimServer randomAlive() {
        List<SimServer> alive = aliveServers();
        return alive.get(plan.nextInt(alive.size()));
    }

    private static List<String> addressesOf(List<SimServer> list) {
        return list.stream().map(s -> s.address).toList();
    }

    /** The live primary root with the latest view of the network, or null. */
    private SimServer root() {
        SimServer best = null;
        for (SimServer s : aliveServers()) {
            if (!s.frozen() && s.core.networkView().position() == 0
                    && (best == null || s.core.networkView().epoch() > best.core.networkView().epoch())) {
                best = s;
            }
        }
        return best;
    }

    private boolean rootTolerant() {
        SimServer root = root();
        return root != null && root.core.tolerant() && world.cutNodes().isEmpty()
                && servers.stream().noneMatch(Node::frozen);
    }

    // ---------------------------------------------------------------- checks

    private void checkResults() {
        for (SimConsumer.Outcome o : outcomes()) {
            if (!o.done) {
                continue;
            }
            boolean cancelled = o.job.cancelAfterNanos() >= 0;
            if (cancelled && o.failure != null && o.failure.startsWith("cancelled")) {
                continue;
            }
            if (cancelled && o.failure == null && audit.wasCancelled(o.computation)) {
                audit.violations.add(o.job.name() + " delivered its result after its cancellation was confirmed");
            }
            if (o.failure != null) {
                audit.violations.add(o.job.name() + " failed: " + o.failure);
                continue;
            }
            if (!same(o.value, o.job.expected())) {
                audit.violations.add(o.job.name() + " = " + o.value + ", expected " + o.job.expected());
            }
            int applied = audit.appliedTasks(o.computation);
            if (applied != o.job.tasks()) {
                audit.violations.add(o.job.name() + ": " + applied + " distinct tasks applied, expected "
                        + o.job.tasks());
            }
        }
    }

    private List<SimConsumer.Outcome> outcomes() {
        return consumers.stream().flatMap(c -> c.outcomes().stream()).toList();
    }

    private static boolean same(Object value, Object expected) {
        if (value instanceof byte[] a && expected instanceof byte[] b) {
            return Arrays.equals(a, b);
        }
        return expected.equals(value);
    }

    private String describeUnfinished() {
        List<String> open = new ArrayList<>();
        for (SimConsumer.Outcome o : outcomes()) {
            if (!o.done) {
                open.add(o.job.name() + (o.computation == 0 ? " (not accepted)" : " (computation "
                        + Long.toHexString(o.computation) + ", " + audit.appliedTasks(o.computation) + " of "
                        + o.job.tasks() + " tasks applied)"));
            }
        }
        for (SimServer s : aliveServers()) {
            var st = s.core.status(7000);
            open.add(s.name + " holds " + st.computations() + " computations, " + st.ready() + " ready tasks, "
                    + st.producers() + " producers");
            for (SimConsumer.Outcome o : outcomes()) {
                if (!o.done && o.computation != 0) {
                    s.core.describeTasks(o.computation).forEach(line -> open.add(s.name + " holds " + line));
                }
            }
        }
        return String.join(", ", open);
    }

    /** The name of the server at tree position 0 now. */
    String rootName() {
        return atPosition(0);
    }

    /** The name of the server at tree position 1 now. */
    String secondaryRootName() {
        return atPosition(1);
    }

    private String atPosition(int position) {
        return aliveServers().stream().filter(s -> s.core.networkView().position() == position).findFirst()
                .map(s -> s.name).orElseThrow();
    }
}
