package org.cx.cli;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.ComputationFailedException;
import org.cx.consumer.Consumer;
import org.cx.consumer.NetworkProbe;
import org.cx.discovery.LookupService;
import org.cx.discovery.RiverDiscovery;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.server.NetworkConfig;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.EventLoops;
import org.cx.wire.WireClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The {@code cx} command. */
@Command(name = "cx", mixinStandardHelpOptions = true, versionProvider = Cx.Version.class,
        description = {
            "CX, a computational exchange: consumers store DAGs of non-blocking tasks into \"the\" task server,",
            "producers prefetch and run them, and every task's effects apply exactly once.",
            "",
            "Start with 'cx demo'. Then run the parts as separate processes:",
            "  cx server --port 7070",
            "  cx producer --server 127.0.0.1:7070 --workers 4",
            "  cx run fib --server 127.0.0.1:7070 --n 25",
            "  cx submit examples/target/examples-0.1.0-SNAPSHOT-fib-app.jar --server 127.0.0.1:7070 25"},
        subcommands = {Cx.Demo.class, Cx.Lookup.class, Cx.Server.class, Cx.ProducerCommand.class, Cx.Run.class,
                SubmitCommand.class, StatusCommand.class,
                Cx.Bench.class, Cx.Network.class,
                CommandLine.HelpCommand.class})
public final class Cx implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Descriptions are written as lines of up to this many characters; a narrower layout would break them. */
    private static final int HELP_WIDTH = 110;

    /** The command line, with error handling that prints what was wrong and how to get help. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Cx());
        cl.setUsageHelpWidth(HELP_WIDTH);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof IllegalArgumentException || e instanceof IOException
                    || e instanceof ComputationFailedException || e instanceof IllegalStateException) {
                commandLine.getErr().println("cx: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"cx 0.1.0 (protocol " + org.cx.wire.WireConfig.PROTOCOL_VERSION + ", Java "
                    + Runtime.version() + ")"};
        }
    }

    /** Commands print through Picocli's writer, so tests and embedders can capture what users see. */
    abstract static class Printing {
        @Spec
        CommandLine.Model.CommandSpec spec;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }
    }

    /** A command that only groups subcommands: run without one, it says which there are. */
    abstract static class Group implements Runnable {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "'" + spec.name() + "' needs one of: " + String.join(", ", spec.subcommands().keySet()));
        }
    }

    // ---------------------------------------------------------------- demo

    @Command(name = "demo", mixinStandardHelpOptions = true,
            description = {"The quick start: computes F(20) on a network embedded in this process.",
                "It runs a lookup service, a task server registered there, and producers and a consumer that find",
                "it there, all talking over loopback TCP, with a small sleep load (2 ms per leaf, 0.1 ms per other",
                "task). An unloaded F(n) warms up the JVM first; then each run prints its wall time and efficiency",
                "beside the zero-overhead ceiling: the first runs still pay for the JIT compiling CX's code."})
    static final class Demo extends Printing implements Callable<Integer> {

        @Option(names = "--n", defaultValue = "20", description = "Which Fibonacci number. Default: ${DEFAULT-VALUE}.")
        int n;

        @Option(names = "--producers", defaultValue = "16",
                description = "Producers, each with its own connection. Default: ${DEFAULT-VALUE}.")
        int producers;

        @Option(names = "--runs", defaultValue = "3",
                description = "Measured runs of F(n), one after another. Default: ${DEFAULT-VALUE}.")
        int runs;

        @Override
        @SuppressWarnings("try") // the announcer only needs closing
        public Integer call() throws Exception {
            if (n < 0 || n > 40 || producers < 1 || runs < 1) {
                throw new IllegalArgumentException("--n must be in 0..40, --producers and --runs at least 1");
            }
            Load load = LoadOptions.of("sleep", 0.1, 2, 0.1).toLoad();
            EventLoopGroup loops = EventLoops.create("demo-producers", 2);
            List<Producer> started = new ArrayList<>();
            try (LookupService lookup = LookupService.start("127.0.0.1", 0);
                 RiverDiscovery discovery = RiverDiscovery.connect(lookup.address());
                 TaskServerNode node = TaskServerNode.start(ServerConfig.defaults().withPort(0).withName("demo"));
                 Announcer announcer = Announcer.start(discovery, node)) {
                out().printf("lookup service on %s; task server %s registered there%n", lookup.address(),
                        node.advertisedAddress());
                for (int i = 0; i < producers; i++) {
                    String server = Lookups.serverForProducer(discovery, lookup.address());
                    started.add(Producer.start(ProducerConfig.of(WireClient.parseAddress(server), 1)
                            .withName("demo-" + i), loops));
                }
                out().printf("%d producers found it there%n", producers);
                try (Consumer consumer = Consumer.connect(Lookups.networkRoot(discovery, lookup.address()))) {
                    warmUp(consumer);
                    out().printf("computing F(%d) %d time%s (%d tasks; sleep load: 2 ms per leaf, 0.1 ms per other "
                            + "task) ...%n", n, runs, runs == 1 ? "" : "s", Fib.taskCount(n));
                    boolean allRight = true;
                    for (int i = 1; i <= runs; i++) {
                        allRight &= runOnce(consumer, load, i);
                    }
                    return allRight ? 0 : 1;
                } finally {
                    started.forEach(Producer::close); // before their server goes
                }
            } finally {
                loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }

        /**
         * F(n) without load, unmeasured: on a fresh JVM the first thousands of tasks run while the JIT is still
         * compiling the server's and producers' paths. Without it the first measured run of the default F(20) got
         * about 0.77 of the ceiling, with it 0.83-0.87, and the second and third runs 0.96-0.98. Under a second.
         */
        private void warmUp(Consumer consumer) throws Exception {
            out().printf("warming up the JVM: F(%d) without load, not measured ...%n", n);
            out().flush();
            long start = System.nanoTime();
            consumer.submit(new Fib(n, Load.NONE)).result().get();
            out().printf("warmed up in %.1f s%n", (System.nanoTime() - start) / 1e9);
        }

        /** One measured run: prints its result, task count check and efficiency; whether the result is right. */
        private boolean runOnce(Consumer consumer, Load load, int run) throws Exception {
            long start = System.nanoTime();
            Consumer.Pending<Long> pending = consumer.submit(new Fib(n, load));
            long value = pending.result().get();
            double wall = (System.nanoTime() - start) / 1e9;
            Consumer.Summary s = pending.summary();
            boolean countRight = s.tasks() == Fib.taskCount(n);
            out().printf("run %d/%d: F(%d) = %d | %d tasks (3*F(n+1)-2: %s), %d executions | %.3f s | efficiency %.3f"
                            + " (ceiling %.3f)%n", run, runs, n, value, s.tasks(),
                    countRight ? "match" : "MISMATCH, expected " + Fib.taskCount(n), s.executions(),
                    wall, s.t1Nanos() / 1e9 / producers / wall,
                    FibBench.ceiling(n, producers, load, s.t1Nanos() / 1e9, s.tasks()));
            out().flush();
            return value == Fib.value(n) && countRight;
        }
    }

    // ---------------------------------------------------------------- lookup

    @Command(name = "lookup", mixinStandardHelpOptions = true,
            description = {"Runs an Apache River (Jini) lookup service until killed.",
                "Servers started with --lookup HOST:PORT register there (with leases), and producers and consumers",
                "started with --lookup find them there. Unicast only, unless --multicast is given."})
    static final class Lookup extends Printing implements Callable<Integer> {

        @Option(names = "--multicast",
                description = "Also announce this lookup service and answer multicast requests (group 'cx', UDP "
                        + "port 4160), so that '--lookup multicast' finds it without an address. Off by default: "
                        + "many networks carry no multicast, and unicast always works.")
        boolean multicast;

        @Option(names = "--port", defaultValue = "4160", description = "TCP port (the Jini default). Default: ${DEFAULT-VALUE}.")
        int port;

        @Option(names = "--host", defaultValue = "127.0.0.1",
                description = "Address to bind and to announce. Default: ${DEFAULT-VALUE}.")
        String host;

        @Override
        public Integer call() throws Exception {
            try (LookupService lookup = LookupService.start(host, port, multicast)) {
                out().println("lookup service listening on " + lookup.address()
                        + (multicast ? "; answering multicast discovery for group '" + LookupService.GROUP + "'" : ""));
                out().flush();
                new CountDownLatch(1).await();
            }
            return 0;
        }
    }

    // ---------------------------------------------------------------- server

    @Command(name = "server", mixinStandardHelpOptions = true,
            description = {"Runs a task server until it is killed.",
                "Without --join it founds a production network (a network of one until others join); with --join",
                "it becomes the new right-most leaf of the network that HOST:PORT belongs to. Consumers submit to",
                "the primary root; producers may attach to any server."})
    static final class Server extends Printing implements Callable<Integer> {

        @Option(names = "--port", defaultValue = "7070", description = "TCP port (0 = any free one). Default: ${DEFAULT-VALUE}.")
        int port;

        @Option(names = "--host", defaultValue = "127.0.0.1",
                description = "Address to bind; use 0.0.0.0 to accept other machines. Default: ${DEFAULT-VALUE}.")
        String host;

        @Option(names = "--name", defaultValue = "cx-server", description = "Name in logs and status. Default: ${DEFAULT-VALUE}.")
        String name;

        @Option(names = "--result-retention", defaultValue = "PT1H", paramLabel = "DURATION",
                description = "How long a result waits to be collected (ISO-8601, e.g. PT10M). Default: ${DEFAULT-VALUE}.")
        Duration retention;

        @Option(names = "--join", paramLabel = "HOST:PORT",
                description = "Join the network of the server at HOST:PORT (any member; it forwards to the root).")
        String join;

        @Option(names = "--branching", defaultValue = "2", paramLabel = "B",
                description = "Branching factor of the fat tree, for a founding server. Default: ${DEFAULT-VALUE}.")
        int branching;

        @Option(names = "--fail-timeout", defaultValue = "PT1S", paramLabel = "DURATION",
                description = "Silence after which a server is declared failed (a broken connection counts at "
                        + "once). Default: ${DEFAULT-VALUE}.")
        Duration failTimeout;

        @Option(names = "--commit-log", paramLabel = "FILE",
                description = "Append the id of every task whose completion is committed (applied here and on "
                        + "every mirror) to FILE: an audit trail. FILE.trail gets every task stored here (and how), "
                        + "and every task sent or received in a transfer.")
        Path commitLog;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Register with the lookup service at HOST:PORT (see 'cx lookup'), so that producers "
                        + "and consumers started with --lookup find this server." + Lookups.MULTICAST_HELP)
        String lookup;

        @Option(names = "--jmx-port", defaultValue = "0", paramLabel = "PORT",
                description = "Port of this process's JMX connector (for cx status and jconsole); 0 picks a free "
                        + "one. Default: ${DEFAULT-VALUE}.")
        int jmxPort;

        @Option(names = "--no-jmx", description = "Start no JMX connector (cx status then shows less).")
        boolean noJmx;

        @Option(names = "--lease", defaultValue = "PT10S", paramLabel = "DURATION",
                description = "Lease of the registration: a dead server leaves the lookup service within it. "
                        + "Default: ${DEFAULT-VALUE}.")
        Duration lease;

        @Override
        @SuppressWarnings("try") // the announcer only needs closing
        public Integer call() throws Exception {
            if (join != null) {
                WireClient.parseAddress(join); // says what is wrong with it before anything starts
            }
            NetworkConfig network = NetworkConfig.defaults().withJoin(join).withBranching(branching)
                    .withFailTimeout(failTimeout);
            String jmx = noJmx ? "" : JmxAgent.start(host.equals("0.0.0.0") ? "127.0.0.1" : host, jmxPort);
            ServerConfig config = ServerConfig.defaults().withHost(host).withPort(port).withName(name)
                    .withResultRetention(retention).withNetwork(network).withCommitLog(commitLog).withJmx(jmx);
            try (TaskServerNode node = TaskServerNode.start(config);
                 RiverDiscovery discovery = lookup == null ? null
                         : RiverDiscovery.connect(lookup, lease, Duration.ofSeconds(10));
                 Announcer announcer = discovery == null ? null : Announcer.start(discovery, node)) {
                out().println("task server " + name + (join == null ? " (founding a network)"
                        : " (joining the network of " + join + ")") + " listening on " + host + ":" + node.port()
                        + (lookup == null ? "" : "; registered with the lookup service at " + discovery.lookupAddress()));
                if (!jmx.isEmpty()) {
                    out().println("JMX: " + jmx);
                }
                out().flush();
                String reason = node.evicted().get();
                err().println("task server " + name + " stops: " + reason);
                err().println("Its tasks are safe on the server that took over. Start it again with --join to "
                        + "add it as a new server.");
                return 3;
            }
        }
    }

    // ---------------------------------------------------------------- network

    @Command(name = "network", mixinStandardHelpOptions = true, description = "Looks at a production network.",
            subcommands = Network.Status.class)
    static final class Network extends Group {

        @Command(name = "status", mixinStandardHelpOptions = true,
                description = {"Prints the tree of a running network.",
                    "As the primary root sees it: each server's position, mirror group, tasks and producers, and",
                    "whether the network tolerates another failure."})
        static final class Status extends Printing implements Callable<Integer> {
            @Option(names = "--server", required = true, paramLabel = "HOST:PORT",
                    description = "Any server of the network.")
            String server;

            @Override
            public Integer call() throws Exception {
                out().print(NetworkProbe.describe(NetworkProbe.status(server)));
                out().flush();
                return 0;
            }
        }
    }

    // ---------------------------------------------------------------- producer

    @Command(name = "producer", mixinStandardHelpOptions = true,
            description = {"Runs a producer attached to a task server, until no server of its network is left.",
                "If its server fails, it moves to a member of that server's mirror group (named when it attached)."})
    static final class ProducerCommand extends Printing implements Callable<Integer> {

        @Option(names = "--server", paramLabel = "HOST:PORT", description = "The task server to attach to.")
        String server;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find a task server (the one with the fewest producers) at this lookup service "
                        + "instead." + Lookups.MULTICAST_HELP)
        String lookup;

        @Option(names = "--workers", defaultValue = "1", paramLabel = "W",
                description = "Worker threads. Default: ${DEFAULT-VALUE}.")
        int workers;

        @Option(names = "--no-prefetch", description = "Ask for a task only when a worker is idle (experiments).")
        boolean noPrefetch;

        @Option(names = "--name", defaultValue = "producer", description = "Name in the server's logs. Default: ${DEFAULT-VALUE}.")
        String name;

        @Option(names = "--jmx-port", defaultValue = "0", paramLabel = "PORT",
                description = "Port of this process's JMX connector (for cx status and jconsole); 0 picks a free "
                        + "one. Default: ${DEFAULT-VALUE}.")
        int jmxPort;

        @Option(names = "--no-jmx", description = "Start no JMX connector.")
        boolean noJmx;

        @Option(names = "--speed", defaultValue = "1.0", paramLabel = "S",
                description = "This host's speed relative to a reference host, as tasks see it "
                        + "(TaskContext.hostSpeed): synthetic benchmark loads take 1/S of their time, to emulate a "
                        + "mix of processor types. Default: ${DEFAULT-VALUE}.")
        double speed;

        @Override
        public Integer call() throws Exception {
            if (!(speed > 0) || speed > ProducerConfig.MAX_SPEED) {
                throw new IllegalArgumentException("--speed must be in (0, " + ProducerConfig.MAX_SPEED + "], got "
                        + speed);
            }
            server = Lookups.serverOrLookup(server, lookup, true);
            InetSocketAddress address = WireClient.parseAddress(server);
            String jmx = noJmx ? "" : JmxAgent.start("127.0.0.1", jmxPort);
            ProducerConfig config = ProducerConfig.of(address, workers).withName(name).withPrefetch(!noPrefetch)
                    .withJmx(jmx).withSpeed(speed);
            try (Producer p = Producer.start(config)) {
                out().println("producer '" + name + "' attached to " + server + " with " + workers + " worker"
                        + (workers == 1 ? "" : "s"));
                out().flush();
                while (p.tasksRun() == 0 && !p.disconnected().isDone()) {
                    Thread.sleep(5);
                }
                if (p.tasksRun() > 0) {
                    long sinceStart = System.currentTimeMillis()
                            - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
                    out().println("producer '" + name + "' ran its first task " + sinceStart + " ms after its JVM "
                            + "started");
                    out().flush();
                }
                p.disconnected().join();
                out().println("producer '" + name + "' stops: its server is gone and no member of its mirror group "
                        + "took it (" + p.tasksRun() + " tasks run)");
            }
            return 1;
        }
    }

    // ---------------------------------------------------------------- run

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Runs an example computation as a consumer.",
            subcommands = Run.RunFib.class)
    static final class Run extends Group {

        @Command(name = "fib", mixinStandardHelpOptions = true,
                description = "Computes F(n) on a running task server; prints 'F(N) = value'.")
        static final class RunFib extends Printing implements Callable<Integer> {

            @Option(names = "--server", paramLabel = "HOST:PORT", description = "The task server (the network's root).")
            String server;

            @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                    description = "Find the network at this lookup service instead (see 'cx lookup')." + Lookups.MULTICAST_HELP)
            String lookup;

            @Option(names = "--n", required = true, description = "Which Fibonacci number (0..60).")
            int n;

            @Mixin
            LoadOptions load;

            @Override
            public Integer call() throws Exception {
                if (n < 0 || n > 60) {
                    throw new IllegalArgumentException("--n must be in 0..60, got " + n);
                }
                try (Consumer consumer = Consumer.connect(Lookups.serverOrLookup(server, lookup, false))) {
                    long start = System.nanoTime();
                    Consumer.Pending<Long> c = consumer.submit(new Fib(n, load.toLoad()));
                    out().printf("submitted computation %x: F(%d), %d tasks%n", c.id(), n, Fib.taskCount(n));
                    long value;
                    try {
                        value = c.result().get();
                    } catch (ExecutionException e) {
                        throw (e.getCause() instanceof RuntimeException re) ? re : e;
                    }
                    Consumer.Summary s = c.summary();
                    out().printf("F(%d) = %d%n", n, value);
                    out().printf("%d tasks, %d executions, %.3f s%n", s.tasks(), s.executions(),
                            (System.nanoTime() - start) / 1e9);
                    return value == Fib.value(n) ? 0 : 1;
                }
            }
        }
    }

    // ---------------------------------------------------------------- bench

    @Command(name = "bench", mixinStandardHelpOptions = true,
            description = "Benchmarks: Fibonacci, recovery, code distribution, EP, the paper's experiments.",
            subcommands = {Bench.BenchFib.class, Bench.BenchRecovery.class, Bench.BenchCode.class,
                Bench.BenchEp.class, Bench.BenchEstimate.class, Bench.BenchPaper.class})
    static final class Bench extends Group {

        @Command(name = "paper", mixinStandardHelpOptions = true,
                description = {"Reproduces the CX paper's experiments (section 5) and draws their charts.",
                    "On loopback, with Table 2's task times 40x shorter: F(n) for n = 13..18 under both workloads on",
                    "64 producers and 1, 3 and 7 servers (Fig. 5 and 6); prefetch on and off for F(11) and F(15)",
                    "on 16 producers; and a mix of producer speeds against the paper's composite base case. Writes",
                    "results.json, report.md and PNG charts into --out. The full run takes about 5 minutes; --quick",
                    "about 2."})
        static final class BenchPaper extends Printing implements Callable<Integer> {
            @Option(names = "--quick", description = "One run per point instead of the median of three.")
            boolean quick;

            @Option(names = "--out", defaultValue = "cx-paper", paramLabel = "DIR",
                    description = "Where to write results.json, report.md and the charts. Default: ${DEFAULT-VALUE}.")
            Path out;

            @Option(names = "--n-min", paramLabel = "N", description = "Smallest n (default 13).")
            Integer nMin;

            @Option(names = "--n-max", paramLabel = "N", description = "Largest n (default 18).")
            Integer nMax;

            @Option(names = "--servers", split = ",", paramLabel = "S",
                    description = "Network sizes, comma-separated; must include 1 (default 1,3,7).")
            List<Integer> servers;

            @Option(names = "--producers", paramLabel = "P", description = "Producers (default 64).")
            Integer producers;

            @Option(names = "--repeat", paramLabel = "R",
                    description = "Measured runs per point (default 3, or 1 with --quick).")
            Integer repeat;

            @Option(names = "--prefetch-producers", paramLabel = "P",
                    description = "Producers of the prefetch experiment (default 16).")
            Integer prefetchProducers;

            @Option(names = "--fast-producers", paramLabel = "K",
                    description = "Producers of the mixed-speed experiment that run 1720/1377x as fast; 0 skips "
                            + "that experiment (default 4).")
            Integer fastProducers;

            @Option(names = "--time-scale", paramLabel = "F",
                    description = "Multiplies every task time (default 1; smaller values only to try the command out "
                            + "quickly: the figures then measure overheads, not the paper's experiment).")
            Double timeScale;

            @Option(names = "--warmup-until-quiet", paramLabel = "S",
                    description = "Before each series, warm up until the JIT is quiet (it compiled for under 5%% of "
                            + "each of the last 3 runs), for at most S seconds per series (default 60, or 0 with "
                            + "--quick: a fixed warm-up).")
            Integer untilQuietS;

            @Override
            public Integer call() throws Exception {
                PaperBench.Profile base = quick ? PaperBench.Profile.quick() : PaperBench.Profile.full();
                PaperBench.Profile profile = new PaperBench.Profile(base.name(), or(nMin, base.nMin()),
                        or(nMax, base.nMax()), servers != null ? servers : base.servers(),
                        or(producers, base.producers()), or(repeat, base.repeat()),
                        timeScale != null ? timeScale : base.timeScale(),
                        or(prefetchProducers, base.prefetchProducers()), base.prefetchNs(),
                        or(fastProducers, base.fastProducers()), or(untilQuietS, base.untilQuietS()));
                PaperBench.Results results = PaperBench.run(profile, err());
                StringBuilder command = new StringBuilder("cx");
                for (String arg : spec.commandLine().getParseResult().originalArgs()) {
                    command.append(' ').append(arg);
                }
                List<Path> files = PaperReport.write(results, out, command.toString());
                out().printf("%d points in %s; %s%n", results.points().size(),
                        PaperBench.minutes(results.elapsedS()),
                        results.allCorrect() ? "every result right" : "SOME RESULTS WRONG");
                for (Path f : files) {
                    out().println("wrote " + f);
                }
                out().flush();
                return results.allCorrect() ? 0 : 1;
            }

            private static int or(Integer given, int otherwise) {
                return given != null ? given : otherwise;
            }
        }

        @Command(name = "estimate", mixinStandardHelpOptions = true,
                description = {"Estimates a long sequential time from two short runs (the paper's technique).",
                    "Runs F(n1) and F(n2) on one producer with one worker, fits T1(n) = alpha + beta * T(n)",
                    "(T(n) = 3F(n+1)-2 tasks), estimates T1 for F(n), and measures F(n) too to show the error (skip",
                    "that with --no-check)."})
        static final class BenchEstimate extends Printing implements Callable<Integer> {
            @Option(names = "--n1", required = true, description = "The first short run.")
            int n1;

            @Option(names = "--n2", required = true, description = "The second short run.")
            int n2;

            @Option(names = "--n", required = true, description = "The run to estimate.")
            int n;

            @Mixin
            LoadOptions load;

            @Option(names = "--no-check", description = "Only estimate; do not measure F(n).")
            boolean noCheck;

            @Override
            public Integer call() throws Exception {
                double t1 = sequential(n1);
                double t2 = sequential(n2);
                SequentialEstimate e = SequentialEstimate.fit(n1, t1, n2, t2);
                out().printf("F(%d): %.3f s and F(%d): %.3f s on one worker -> alpha %.4f s, beta %.6f s per task%n",
                        n1, t1, n2, t2, e.alphaS(), e.betaS());
                out().printf("estimated T1 for F(%d) (%d tasks): %.3f s%n", n, Fib.taskCount(n), e.seconds(n));
                if (!noCheck) {
                    double measured = sequential(n);
                    out().printf("measured: %.3f s; estimate error %+.1f%%%n", measured,
                            100 * (e.seconds(n) - measured) / measured);
                }
                out().flush();
                return 0;
            }

            /** Median wall time of three runs of F(k) on one server, one producer, one worker, after one warm-up. */
            private double sequential(int k) throws Exception {
                FibBench.Settings s = new FibBench.Settings(k, 1, 1, 1, load, true, false, 1, 3);
                return FibBench.median(FibBench.run(s, new java.io.PrintStream(java.io.OutputStream.nullOutputStream())))
                        .wallS();
            }
        }

        @Command(name = "ep", mixinStandardHelpOptions = true,
                description = {"Runs the NAS EP kernel on 1, 2, 4 ... P producers and reports the speedup.",
                    "Size M, one server, one-worker producers; prints the time, the speedup over one producer, and",
                    "whether the answer matches the NPB reference. EP is pure CPU: the speedup cannot exceed the",
                    "cores the producers share."})
        static final class BenchEp extends Printing implements Callable<Integer> {
            @Option(names = "--m", defaultValue = "26", description = "Size: 2^(M+1) random numbers. Default: ${DEFAULT-VALUE}.")
            int m;

            @Option(names = "--max-producers", defaultValue = "64", paramLabel = "P",
                    description = "Largest number of producers (powers of two up to it). Default: ${DEFAULT-VALUE}.")
            int maxProducers;

            @Option(names = "--runs", defaultValue = "3", description = "Runs per point (median). Default: ${DEFAULT-VALUE}.")
            int runs;

            @Override
            public Integer call() throws Exception {
                if (m < 16 || m > 34 || maxProducers < 1 || runs < 1) {
                    throw new IllegalArgumentException("--m must be in 16..34; --max-producers and --runs positive");
                }
                long batches = 1L << (m - 16);
                double base = 0;
                boolean allRight = true;
                for (int p = 1; p <= maxProducers; p *= 2) {
                    List<Double> times = new ArrayList<>();
                    org.cx.examples.ep.Ep.Result last = null;
                    try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ep"), 1, p, 1,
                            true); Consumer consumer = cluster.consumer()) {
                        for (int r = 0; r <= runs; r++) { // the first run warms up
                            long start = System.nanoTime();
                            last = consumer.<org.cx.examples.ep.Ep.Result>submit(new org.cx.examples.ep.Ep(m,
                                    Math.max(1, batches / 256))).result().get();
                            if (r > 0) {
                                times.add((System.nanoTime() - start) / 1e9);
                            }
                        }
                    }
                    double t = RecoveryBench.median(times);
                    if (p == 1) {
                        base = t;
                    }
                    String check;
                    try {
                        boolean ok = org.cx.examples.ep.Ep.verify(m, last);
                        allRight &= ok;
                        check = ok ? "matches the NPB reference" : "DOES NOT match the NPB reference";
                    } catch (IllegalArgumentException e) {
                        check = "no NPB reference for this M";
                    }
                    out().printf("EP M=%d, %2d producers: %.3f s, speedup %.2f; %d Gaussian pairs; %s%n", m, p, t,
                            base / t, last.gaussianPairs(), check);
                    out().flush();
                }
                return allRight ? 0 : 1;
            }
        }

        @Command(name = "code", mixinStandardHelpOptions = true,
                description = {"Measures how fast an application's code reaches every producer.",
                    "Submits an application whose code no server or producer has (the Fibonacci classes padded to",
                    "--bundle-mb), and measures the time until the last producer runs a task and the bytes the",
                    "consumer sent. Runs --runs times; prints each run and the median."})
        static final class BenchCode extends Printing implements Callable<Integer> {
            @Option(names = "--servers", defaultValue = "7", description = "Servers. Default: ${DEFAULT-VALUE}.")
            int servers;

            @Option(names = "--producers", defaultValue = "64", description = "One-worker producers. Default: ${DEFAULT-VALUE}.")
            int producers;

            @Option(names = "--bundle-mb", defaultValue = "1", paramLabel = "MB",
                    description = "Bundle size in MiB. Default: ${DEFAULT-VALUE}.")
            int megabytes;

            @Option(names = "--runs", defaultValue = "3", description = "Runs. Default: ${DEFAULT-VALUE}.")
            int runs;

            @Override
            public Integer call() throws Exception {
                if (servers < 1 || producers < 1 || megabytes < 0 || runs < 1) {
                    throw new IllegalArgumentException("--servers, --producers and --runs must be positive, "
                            + "--bundle-mb not negative");
                }
                List<Double> last = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    CodeBench.Sample s = CodeBench.run(servers, producers, megabytes, System.err);
                    out().printf("run %d: bundle %,d bytes; first task after %.0f ms; last producer's first task "
                            + "after %.0f ms; consumer sent %,d bytes; server fetches %d; producer fetches %d%n",
                            i + 1, s.bundleBytes(), s.firstTaskMs(), s.lastProducerMs(), s.consumerBytes(),
                            s.serverFetches(), s.producerFetches());
                    out().flush();
                    last.add(s.lastProducerMs());
                }
                out().printf("median over %d runs: last of %d producers ran its first task %.0f ms after submission%n",
                        runs, producers, RecoveryBench.median(last));
                return 0;
            }
        }

        @Command(name = "recovery", mixinStandardHelpOptions = true,
                description = {"Measures recovery from server failures (SIGKILL).",
                    "Starts S server processes and producers spread over them, keeps computations running, and kills",
                    "servers with SIGKILL one after another. For each failure: the time until every producer of the",
                    "killed server is served again, and until the network tolerates another failure."})
        static final class BenchRecovery extends Printing implements Callable<Integer> {
            @Option(names = "--servers", defaultValue = "7", description = "Server processes. Default: ${DEFAULT-VALUE}.")
            int servers;

            @Option(names = "--producers-per-server", defaultValue = "4", paramLabel = "P",
                    description = "One-worker producers attached to each server. Default: ${DEFAULT-VALUE}.")
            int perServer;

            @Option(names = "--kills", description = "Failures, one after another. Default: S - 2 (5 of the default 7 "
                    + "servers), so that the last repair still leaves a network that can tolerate a failure.")
            Integer kills;

            @Option(names = "--seed", description = "Seed for choosing the victims (printed when not given).")
            Long seed;

            @Override
            public Integer call() throws Exception {
                long s = seed != null ? seed : System.nanoTime();
                err().println("seed " + s);
                err().flush();
                int failures = kills != null ? kills : Math.max(1, servers - 2);
                List<RecoveryBench.Sample> samples = RecoveryBench.run(servers, perServer, failures, s, System.err);
                double served = RecoveryBench.median(samples.stream().map(RecoveryBench.Sample::servedMs).toList());
                double tolerant = RecoveryBench.median(
                        samples.stream().map(RecoveryBench.Sample::tolerantMs).toList());
                out().printf("median of %d failures: producers served again after %.0f ms; network tolerant of "
                        + "another failure after %.0f ms%n", samples.size(), served, tolerant);
                out().flush();
                return 0;
            }
        }

        @Command(name = "fib", mixinStandardHelpOptions = true,
                description = {"Runs the Fibonacci DAG and reports efficiency and throughput.",
                    "P producers, each with its own TCP connection; efficiency (T1/(P*W))/Tp is shown beside the",
                    "zero-overhead greedy ceiling. Each run also says how the workers' idle time splits (start-up,",
                    "steady, wind-down) and how much CPU the servers and the producers' I/O threads used."})
        static final class BenchFib extends Printing implements Callable<Integer> {

            @Option(names = "--n", required = true, description = "Which Fibonacci number.")
            int n;

            @Option(names = "--servers", defaultValue = "1", description = "Task servers. Default: ${DEFAULT-VALUE}.")
            int servers;

            @Option(names = "--producers", defaultValue = "2", paramLabel = "P",
                    description = "Producers. Default: ${DEFAULT-VALUE}.")
            int producers;

            @Option(names = "--workers", defaultValue = "1", paramLabel = "W",
                    description = "Worker threads per producer. Default: ${DEFAULT-VALUE}.")
            int workers;

            @Mixin
            LoadOptions load;

            @Option(names = "--no-prefetch", description = "Producers ask for a task only when a worker is idle.")
            boolean noPrefetch;

            @Option(names = "--local", description = "Run the same DAG on an in-process ForkJoinPool with P*W threads.")
            boolean local;

            @Option(names = "--warmup", defaultValue = "1", paramLabel = "K",
                    description = "Unmeasured runs first (JIT warm-up). With a synthetic load and K > 0, two "
                            + "unloaded runs of F(20) come before them, which warm the JIT in a second "
                            + "rather than K loaded runs. Default: ${DEFAULT-VALUE}.")
            int warmup;

            @Option(names = "--warmup-until-quiet", defaultValue = "60", paramLabel = "S",
                    description = "After the K warm-up runs (if K > 0), keep warming up while the JIT is still "
                            + "compiling (for 5%% or more of any of the last 3 runs), for at most S seconds, so "
                            + "that the compiled code is measured, not the compiler: 7 servers sharing 2 cores "
                            + "need about 30 runs of F(13). 0: only the K runs. Default: ${DEFAULT-VALUE}.")
            int untilQuietS;

            @Option(names = "--repeat", defaultValue = "1", paramLabel = "R",
                    description = "Measured runs on the same warmed-up cluster; the median wall time is reported. "
                            + "Default: ${DEFAULT-VALUE}.")
            int repeat;

            @Option(names = "--json", paramLabel = "FILE",
                    description = "Also write the figures as one JSON object (the median run, with every run under \"runs\").")
            Path json;

            @Option(names = "--timeline", paramLabel = "FILE",
                    description = {"Also write the last measured run's timeline: every task each worker ran (and "
                            + "how long it sat in the producer's cache first) and every wait for a task, one lane "
                            + "per worker, grouped by server, and each server's scheduler decisions (stored, "
                            + "assigned, revoked, sent to and transmitted to another server), as Chrome trace "
                            + "events (JSON). Open it in "
                            + "https://ui.perfetto.dev or chrome://tracing."})
            Path timeline;

            @Override
            public Integer call() throws Exception {
                FibBench.Settings s = new FibBench.Settings(n, servers, producers, workers, load, !noPrefetch, local,
                        warmup, repeat);
                if (timeline != null && local) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                            "--timeline records the producers of a cluster; --local runs none: drop one of them");
                }
                if (untilQuietS < 0) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                            "--warmup-until-quiet must be >= 0 seconds, got " + untilQuietS);
                }
                List<FibBench.Outcome> runs = FibBench.run(s, Duration.ofSeconds(untilQuietS), System.err,
                        timeline);
                FibBench.Outcome o = FibBench.median(runs);
                out().println((repeat > 1 ? "median of " + repeat + ": " : "") + FibBench.describe(o));
                if (json != null) {
                    Path parent = json.toAbsolutePath().getParent();
                    if (parent != null) {
                        Files.createDirectories(parent);
                    }
                    Map<String, Object> object = o.toMap();
                    object.put("repeat", repeat);
                    object.put("runs", runs.stream().map(FibBench.Outcome::toMap).toList());
                    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(json))) {
                        w.print(Json.write(object));
                    }
                }
                return o.correct() ? 0 : 1;
            }
        }
    }
}
