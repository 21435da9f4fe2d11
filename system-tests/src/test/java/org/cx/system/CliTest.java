package org.cx.system;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.cx.cli.Cx;
import org.cx.consumer.NetworkProbe;
import org.cx.examples.fib.Fib;
import org.cx.harness.AppJars;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.system.Cli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.cx.system.Cli.cx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cx command as users meet it. */
class CliTest {

    /**
     * The README's first command, smaller: the embedded lookup service, a server registered there and producers that
     * found it, a warm-up, then every measured run with the right value and task count.
     */
    @Test
    void demoComputesOnAnEmbeddedNetwork() {
        Run r = cx("demo", "--n", "12", "--producers", "3", "--runs", "2");
        assertEquals(0, r.exit(), r.err() + r.out());
        assertTrue(r.out().contains("registered there") && r.out().contains("3 producers found it there"), r.out());
        assertTrue(r.out().contains("warmed up in"), r.out());
        for (int run = 1; run <= 2; run++) {
            assertTrue(r.out().contains("run " + run + "/2: F(12) = 144 | " + Fib.taskCount(12)
                    + " tasks (3*F(n+1)-2: match)"), r.out());
        }
        Run noRuns = cx("demo", "--runs", "0");
        assertEquals(2, noRuns.exit());
        assertTrue(noRuns.err().contains("--runs at least 1"), noRuns.err());
    }

    @Test
    void benchWritesEveryFieldToJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out/fib.json");
        Run r = cx("bench", "fib", "--n", "12", "--producers", "3", "--workers", "2", "--load", "spin",
                "--leaf-ms", "0.05", "--warmup", "0", "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode written = new ObjectMapper().readTree(json.toFile());
        for (String key : new String[] {"n", "servers", "producers", "workers", "load", "prefetch", "result",
                "correct", "tasks", "expected_tasks", "executions", "wall_s", "t1_s", "efficiency", "ceiling",
                "tasks_per_s", "idle_initial_s", "idle_steady_s", "idle_termination_s", "idle_s",
                "limit_idle_initial_share", "limit_idle_termination_share", "limit_idle_initial_s", "server_cpu_s",
                "producer_io_cpu_s"}) {
            assertTrue(written.has(key), key + " missing from " + written);
        }
        assertTrue(written.get("correct").asBoolean(), written.toString());
        assertEquals(144, written.get("result").asLong(), written.toString());
        double idle = written.get("idle_s").asDouble();
        double parts = written.get("idle_initial_s").asDouble() + written.get("idle_steady_s").asDouble()
                + written.get("idle_termination_s").asDouble();
        assertEquals(idle, parts, 1e-5, "the idle-time split adds up (the JSON rounds to microseconds)");
        assertTrue(idle <= 3 * 2 * written.get("wall_s").asDouble() + 1e-6, "idle within workers × wall: " + written);
        // One server: one event loop thread did the servers' work, within the run (measured just around it).
        double serverCpu = written.get("server_cpu_s").asDouble();
        assertTrue(serverCpu > 0 && serverCpu <= written.get("wall_s").asDouble() + 0.05, "server CPU: " + written);
        assertTrue(written.get("producer_io_cpu_s").asDouble() > 0, "producers' I/O CPU: " + written);
    }

    /**
     * {@code --timeline}: the last run's tasks, waits and scheduler decisions as Chrome trace events. Every task of
     * the DAG was stored on some server and ran in some lane, lanes belong to the servers their producers attached
     * to, and the waits drawn add up to the idle time the run reports (they are the same intervals).
     */
    @Test
    void benchWritesTheLastRunsTimeline(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("fib.json");
        Path timeline = dir.resolve("out/timeline.json");
        Run r = cx("bench", "fib", "--n", "11", "--servers", "2", "--producers", "3", "--workers", "2", "--load",
                "sleep", "--leaf-ms", "1", "--warmup", "0", "--repeat", "2", "--json", json.toString(),
                "--timeline", timeline.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode run = new ObjectMapper().readTree(json.toFile()).get("runs").get(1);
        JsonNode events = new ObjectMapper().readTree(timeline.toFile()).get("traceEvents");

        Set<String> lanes = new HashSet<>();
        Set<String> ran = new HashSet<>();
        Set<String> stored = new HashSet<>();
        Map<String, Integer> decisions = new TreeMap<>();
        // task and destination server -> when it was sent, transmitted, stored there as a transfer
        Map<String, double[]> transfers = new TreeMap<>();
        int taskSpans = 0;
        int claimed = 0;
        double idleMicros = 0;
        double wallMicros = run.get("wall_s").asDouble() * 1e6;
        for (JsonNode e : events) {
            int pid = e.get("pid").asInt();
            assertTrue(pid == 0 || pid == 1, "one process per server: " + e);
            String phase = e.get("ph").asText();
            if (phase.equals("M")) {
                if (e.get("name").asText().equals("thread_name")) {
                    lanes.add(pid + "/" + e.get("tid").asInt());
                }
                continue;
            }
            double ts = e.get("ts").asDouble();
            double dur = phase.equals("X") ? e.get("dur").asDouble() : 0;
            assertTrue(ts >= 0 && dur >= 0 && ts + dur <= wallMicros + 1, "inside the run: " + e);
            assertTrue(lanes.contains(pid + "/" + e.get("tid").asInt()), "in a named lane: " + e);
            switch (e.get("cat").asText()) {
                case "idle" -> idleMicros += dur;
                case "scheduler" -> {
                    decisions.merge(e.get("name").asText(), 1, Integer::sum);
                    String task = e.at("/args/task").asText();
                    switch (e.get("name").asText()) {
                        case "stored" -> {
                            stored.add(task);
                            if (e.at("/args/how").asText().equals("transferred")) {
                                transfers.computeIfAbsent(task + " to server " + pid, k -> new double[3])[2] = ts;
                            }
                        }
                        case "sent" -> transfers.computeIfAbsent(task + " to " + e.at("/args/to").asText(),
                                k -> new double[3])[0] = ts;
                        case "transmitted" -> transfers.computeIfAbsent(task + " to " + e.at("/args/to").asText(),
                                k -> new double[3])[1] = ts;
                        default -> { }
                    }
                }
                default -> {
                    assertTrue(Set.of("Fib", "Sum").contains(e.get("name").asText()), e.toString());
                    ran.add(e.at("/args/task").asText());
                    JsonNode cached = e.at("/args/cached_ms");
                    assertTrue(cached.isNumber() ? cached.asDouble() >= 0 : cached.asText().equals("claimed"),
                            e.toString());
                    claimed += cached.isNumber() ? 0 : 1;
                    taskSpans++;
                }
            }
        }
        assertEquals(2 + 3 * 2, lanes.size(), "a lane per worker, and one per server's scheduler");
        assertEquals(Fib.taskCount(11), ran.size(), "every task of the DAG ran");
        assertEquals(ran, stored, "and was stored on a server first");
        assertEquals(run.get("executions").asLong(), taskSpans, "a span per execution");
        assertTrue(claimed > 0 && claimed < taskSpans, "some tasks were claimed, some came through a cache");
        assertTrue(decisions.getOrDefault("assigned", 0) > 0, "assignments: " + decisions);
        // The second server's producer gets work only by diffusion, and each move shows on both servers.
        assertTrue(decisions.getOrDefault("sent", 0) > 0, "transfers: " + decisions);
        transfers.forEach((move, at) -> assertTrue(0 < at[0] && at[0] <= at[1] && at[1] <= at[2],
                "sent, then transmitted, then stored at the other end: " + move + " " + Arrays.toString(at)));
        double idle = run.get("idle_s").asDouble() * 1e6;
        assertEquals(idle, idleMicros, 1e-4 * idle + 1, "the waits drawn are the run's idle time");
    }

    /**
     * {@code cx bench paper --quick} end to end in a test profile: tiny n, 8 producers, loads a tenth of the
     * paper's scale. Checks the JSON (parsed by a real parser), every run's result, the idle split, the report's
     * sections and that every chart is a real PNG of the promised size.
     */
    @Test
    void benchPaperQuickWritesResultsReportAndCharts(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("paper");
        Run r = cx("bench", "paper", "--quick", "--n-min", "8", "--n-max", "9", "--servers", "1,3", "--producers",
                "8", "--prefetch-producers", "4", "--fast-producers", "2", "--time-scale", "0.1", "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("[14/14]"), "a progress line per point: " + r.err());

        JsonNode root =
                new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertTrue(root.at("/machine/cores").asInt() > 0, "the machine is recorded");
        JsonNode points = root.get("points");
        // 2 workloads x 2 network sizes x 2 n, prefetch on/off x F(11), F(15), mixed speeds x 2 n.
        assertEquals(2 * 2 * 2 + 2 * 2 + 2, points.size());
        Map<String, Integer> perExperiment = new TreeMap<>();
        for (JsonNode p : points) {
            perExperiment.merge(p.get("experiment").asText(), 1, Integer::sum);
            assertEquals(1, p.get("runs").size());
            JsonNode run = p.get("runs").get(0);
            assertTrue(run.get("correct").asBoolean(), run.toString());
            assertEquals(Fib.value(run.get("n").asInt()), run.get("result").asLong());
            double parts = run.get("idle_initial_s").asDouble() + run.get("idle_steady_s").asDouble()
                    + run.get("idle_termination_s").asDouble();
            assertEquals(run.get("idle_s").asDouble(), parts, 1e-5, "idle split adds up: " + run);
            assertTrue(run.get("ceiling").asDouble() > 0 && run.get("ceiling").asDouble() <= 1, run.toString());
            assertTrue(run.get("server_cpu_s").asDouble() > 0, "the servers' CPU is measured: " + run);
            double limitInitial = run.get("limit_idle_initial_s").asDouble();
            assertTrue(limitInitial > 0 && limitInitial < run.get("idle_s").asDouble(),
                    "the zero-overhead schedule's start-up idle, in seconds of this run: " + run);
        }
        assertEquals(Map.of("mixed", 2, "prefetch", 4, "scaling", 8), perExperiment);

        String report = Files.readString(out.resolve("report.md"));
        for (String section : new String[] {"## Efficiency against n (Fig. 5)", "## Where the idle time went (Fig. 6)",
                "## Prefetch on and off", "## Mixed processor types", "Target, prefetch on ≥ off at n = 15",
                "## The network's own cost", "beyond that schedule's start-up"}) {
            assertTrue(report.contains(section), section + " missing from\n" + report);
        }
        for (String chart : new String[] {"fig5-efficiency-workload1.png", "fig5-efficiency-workload2.png",
                "fig6-idle-workload1.png", "fig6-idle-workload2.png", "prefetch.png", "mixed-speeds.png"}) {
            BufferedImage image = ImageIO.read(out.resolve(chart).toFile());
            assertTrue(image != null && image.getWidth() == 900 && image.getHeight() == 540, chart);
        }
    }

    @Test
    void benchPaperRefusesAProfileWithoutTheOneServerReference(@TempDir Path dir) {
        Run r = cx("bench", "paper", "--servers", "3,7", "--out", dir.toString());
        assertTrue(r.exit() != 0);
        assertTrue(r.err().contains("include 1"), r.err());
    }

    @Test
    void estimateFitsTwoShortRunsAndChecksALongerOne() {
        Run r = cx("bench", "estimate", "--n1", "6", "--n2", "8", "--n", "10", "--load", "sleep", "--leaf-ms", "0.2");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("estimated T1 for F(10) (265 tasks)"), r.out());
        assertTrue(r.out().contains("estimate error"), r.out());
    }

    /** The Ninf benchmarks end to end, small: a call against a local solve, then clients of Linpack and of EP. */
    @Test
    void ninfBenchPrintsItsTablesAndRefusesAnEpSizeWithoutReference(@TempDir Path dir) {
        Run r = cx("bench", "ninf", "--sizes", "50,80", "--repeats", "1", "--clients", "1,2", "--clients-n", "60",
                "--duration", "3s", "--ep-m", "24", "--seed", "7", "--chart", dir.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("n\tlocal ms\tlocal Mflops\tcall ms\tcall Mflops") && r.out().contains("\n80\t"),
                r.out());
        assertTrue(r.out().contains("Linpack n = 60, seed 7") && r.out().contains("EP m = 24, seed 7"), r.out());
        assertTrue(Files.exists(dir.resolve("linpack-call.png")) && Files.exists(dir.resolve("ep-clients.png")));
        Run bad = cx("bench", "ninf", "--ep-m", "26");
        assertEquals(2, bad.exit(), bad.out());
        assertTrue(bad.err().contains("--ep-m one of 24, 25, 28, 30"), bad.err());
    }

    @Test
    void localForkJoinComparison() {
        Run r = cx("bench", "fib", "--n", "15", "--producers", "2", "--local", "--warmup", "0");
        assertEquals(0, r.exit(), r.err());
    }

    @Test
    void wrongFlagsSayWhatIsWrong() {
        Run unknown = cx("bench", "fib", "--n", "10", "--bogus");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("Unknown option: '--bogus'"), unknown.err());
        Run badLoad = cx("bench", "fib", "--n", "10", "--load", "heavy", "--warmup", "0");
        assertEquals(2, badLoad.exit());
        assertTrue(badLoad.err().contains("--load must be none, sleep or spin"), badLoad.err());
        Run servers = cx("bench", "fib", "--n", "10", "--servers", "0");
        assertEquals(2, servers.exit());
        assertTrue(servers.err().contains("--servers must be in 1..64"), servers.err());
        Run badAddress = cx("run", "fib", "--server", "nohost", "--n", "5");
        assertEquals(2, badAddress.exit());
        assertTrue(badAddress.err().contains("expected HOST:PORT"), badAddress.err());
        Run kills = cx("bench", "recovery", "--servers", "3", "--kills", "3");
        assertEquals(2, kills.exit());
        assertTrue(kills.err().contains("got 3 kills of 3 servers"), kills.err());
        Run badDuration = cx("server", "--port", "0", "--fail-timeout", "soon");
        assertEquals(2, badDuration.exit());
        assertTrue(badDuration.err().contains("'soon' is not a duration"), badDuration.err());
        Run help = cx("--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("cx demo"), help.out());
    }

    @Test
    void completionCoversEveryCommandAndOption() {
        Run r = cx("completion");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("complete -F"), "a bash completion script: " + r.out());
        for (String word : new String[] {"bench", "recovery", "--fail-timeout", "--warmup-until-quiet", "submit"}) {
            assertTrue(r.out().contains(word), word + " missing from the completion script");
        }
    }

    /**
     * {@code cx server --join} to an address where nothing listens yet says why it is not in, keeps asking, and joins
     * once a server is there.
     */
    @Test
    void aServerJoiningANetworkNotUpYetSaysSoAndJoinsWhenItIs() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            port = probe.getLocalPort(); // free now; the root takes it below
        }
        try (ChildProcess joiner = ChildProcess.start("joiner", Cx.class.getName(), "server", "--port", "0",
                "--no-jmx", "--join", "127.0.0.1:" + port)) {
            String warning = joiner.awaitLine("is not in the network yet", Duration.ofSeconds(30));
            assertTrue(warning.contains("127.0.0.1:" + port) && warning.contains("Connection refused"), warning);
            try (ChildProcess root = ChildProcess.start("root", Cx.class.getName(), "server", "--port",
                    String.valueOf(port), "--no-jmx")) {
                root.awaitLine("listening on", Duration.ofSeconds(30));
                Await.until("the joiner in the network", Duration.ofSeconds(30), () -> cx("network", "status",
                        "--server", "127.0.0.1:" + port).out().contains("2 server(s)"));
            }
        }
    }

    @Test
    void separateProcessesComputeTogether() throws Exception {
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String address = addressOf(server);
            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer",
                    "--server", address, "--workers", "2")) {
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                Run r = cx("run", "fib", "--server", address, "--n", "20", "--load", "sleep", "--leaf-ms", "0.01");
                assertEquals(0, r.exit(), r.err());
                assertTrue(r.out().contains("F(20) = 6765"), r.out());
            }
        }
    }

    /** 0 + 1 + … + (n−1) by halving: an application no process of the test has on its class path. */
    private static final Map<String, String> RANGE_SUM_APP = Map.of(
            "app.RangeSum", """
                    package app;
                    import org.cx.api.*;
                    public class RangeSum extends Task {
                        private final long lo;
                        private final long hi;
                        public RangeSum(long lo, long hi) { this.lo = lo; this.hi = hi; }
                        @Override
                        public void execute(TaskContext context) {
                            if (hi - lo == 1) {
                                context.sendResult(lo);
                                return;
                            }
                            long mid = (lo + hi) / 2;
                            TaskId add = context.storeTask(new Add(), context.continuation());
                            context.storeTask(new RangeSum(lo, mid), Continuation.to(add, 0));
                            context.storeTask(new RangeSum(mid, hi), Continuation.to(add, 1));
                        }
                    }
                    """,
            "app.Add", """
                    package app;
                    import org.cx.api.*;
                    public class Add extends Task {
                        public Add() { super(2); }
                        @Override
                        public void execute(TaskContext context) {
                            long a = input(0);
                            long b = input(1);
                            context.sendResult(a + b);
                        }
                    }
                    """,
            "app.Main", """
                    package app;
                    import org.cx.api.*;
                    public class Main implements Application {
                        @Override
                        public int run(TaskServer server, String[] args) throws Exception {
                            long n = Long.parseLong(args[0]);
                            long sum = server.<Long>submit(new RangeSum(0, n)).result().get();
                            System.out.println("sum = " + sum);
                            return sum == n * (n - 1) / 2 ? 0 : 1;
                        }
                        public static long square(long x) { return x * x; }
                        public static long fail(String why) throws java.io.IOException {
                            throw new java.io.IOException(why);
                        }
                    }
                    """);

    /** The application's classes are in the jar only: the server and the producer get them from the bundle. */
    @Test
    void submitRunsAnApplicationJarThatNoProducerHasInstalled(@TempDir Path dir) throws Exception {
        Path app = rangeSumJar(dir);
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String address = addressOf(server);
            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--server",
                    address, "--workers", "2")) {
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                Run r = cx("submit", app.toString(), "--server", address, "1000");
                assertEquals(0, r.exit(), r.err());
                assertTrue(r.err().contains("finished with status 0"), r.err());
                // RangeSum(0, 1000): 1,999 ranges and 999 sums, from the computation's summary.
                assertTrue(r.err().contains("2,998 tasks completed"), r.err());
                assertTrue(r.err().contains("uploaded " + String.format("%,d", Files.size(app)) + " bytes"), r.err());
            }
        }
    }

    /** A stopped `cx submit` once left its computation running to the end, with no one to stop it. */
    @Test
    void submitPrintsTheComputationIdAndCancelsItWhenStopped(@TempDir Path dir) throws Exception {
        Path app = rangeSumJar(dir);
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String address = addressOf(server);
            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--server",
                    address, "--workers", "2");
                 ChildProcess submit = ChildProcess.start("submit", Cx.class.getName(), "submit", app.toString(),
                         "--server", address, "--no-progress", "100000000")) { // hours of tasks
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                String started = submit.awaitLine("cx submit: computation ", Duration.ofSeconds(30));
                assertTrue(started.matches(".*cx submit: computation [0-9a-f]+ started"), started);
                Await.until("tasks on the server", Duration.ofSeconds(30), () -> readyOn(address) > 0);
                submit.terminate();
                submit.awaitLine("cx submit: cancelled computation", Duration.ofSeconds(30));
                submit.awaitExit(Duration.ofSeconds(30));
                Await.until("the server without its tasks", Duration.ofSeconds(30), () -> readyOn(address) == 0);
            }
        }
    }

    @Test
    void jobCommandsSeeAndStopAComputationFromAnotherProcess(@TempDir Path dir) throws Exception {
        Path app = rangeSumJar(dir);
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String address = addressOf(server);
            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--server",
                    address, "--workers", "2");
                 ChildProcess submit = ChildProcess.start("submit", Cx.class.getName(), "submit", app.toString(),
                         "--server", address, "--no-progress", "100000000")) {
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                Run square = cx("call", app.toString(), "app.Main.square", "12", "--server", address);
                assertEquals(0, square.exit(), square.err());
                assertEquals("144", square.out().strip(), "a function of the jar, run on the producer");
                Run failing = cx("call", app.toString(), "app.Main.fail", "disk full", "--server", address);
                assertEquals(1, failing.exit());
                assertTrue(failing.err().contains("java.io.IOException: disk full"), failing.err());
                Run missing = cx("call", app.toString(), "app.Main.cube", "2", "--server", address);
                assertEquals(2, missing.exit());
                assertTrue(missing.err().contains("no public static method cube of 1 parameter in app.Main"),
                        missing.err());
                Run badArgument = cx("call", app.toString(), "app.Main.square", "twelve", "--server", address);
                assertTrue(badArgument.err().contains("argument 1 of square, 'twelve', is not a long"),
                        badArgument.err());
                String started = submit.awaitLine("cx submit: computation ", Duration.ofSeconds(30));
                String id = started.replaceAll(".*computation ([0-9a-f]+) started.*", "$1");
                Run status = cx("job", "status", id, "--server", address);
                assertEquals(0, status.exit(), status.err());
                assertTrue(status.out().contains("computation " + id + " is RUNNING"), status.out());
                Run priority = cx("job", "priority", id, "7", "--server", address);
                assertEquals(0, priority.exit(), priority.err());
                Run list = cx("job", "list", "--server", address);
                assertEquals(0, list.exit(), list.err());
                assertTrue(list.out().matches("(?s).*\\n" + id + " +RUNNING +7 .*"), list.out());
                Run waiting = cx("job", "wait", id, "--timeout", "100ms", "--server", address);
                assertEquals(2, waiting.exit(), waiting.err());
                assertTrue(waiting.err().contains("is still running after"), waiting.err());
                Run cancel = cx("job", "cancel", id, "--server", address);
                assertEquals(0, cancel.exit(), cancel.err());
                assertTrue(cancel.out().contains("cancelled computation " + id), cancel.out());
                submit.awaitExit(Duration.ofSeconds(30)); // its computation failed: the application ends
                Await.until("the server without its tasks", Duration.ofSeconds(30), () -> readyOn(address) == 0);
                Run ended = cx("job", "wait", id, "--server", address);
                assertEquals(1, ended.exit(), "cancelled, and collected by cx submit: " + ended.err());
                Run unknown = cx("job", "cancel", "abc", "--server", address);
                assertEquals(1, unknown.exit());
                assertTrue(unknown.err().contains("no computation abc of this user"), unknown.err());
                Run bad = cx("job", "status", "xyz", "--server", address);
                assertTrue(bad.err().contains("'xyz' is not a computation id"), bad.err());
            }
        }
    }

    /** The range-sum application as a jar in {@code dir}, its entry point named in the manifest. */
    static Path rangeSumJar(Path dir) throws IOException {
        Map<String, byte[]> entries = new TreeMap<>(Jars.compile(RANGE_SUM_APP, dir.resolve("build")));
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCX-Application: app.Main\n"
                .getBytes(StandardCharsets.US_ASCII));
        return Files.write(dir.resolve("range-sum.jar"), AppJars.jar(entries));
    }

    /** The address a child {@code cx server} says it listens on. */
    private static String addressOf(ChildProcess server) {
        String line = server.awaitLine("listening on", Duration.ofSeconds(30));
        return line.substring(line.lastIndexOf(' ') + 1);
    }

    /** Ready tasks on the server at {@code address}, or -1 if it cannot say. */
    private static int readyOn(String address) {
        try {
            return NetworkProbe.status(address).servers()[0].ready();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Test
    void submitSaysWhatIsWrongWithAJar(@TempDir Path dir) throws Exception {
        Run r = cx("submit", dir.resolve("missing.jar").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("is not a file"), r.err());
        Path noEntry = Files.write(dir.resolve("plain.jar"), AppJars.jar(AppJars.packageOf(Fib.class)));
        r = cx("submit", noEntry.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("names no entry point"), r.err());
        Path notAJar = Files.writeString(dir.resolve("text.jar"), "hello");
        r = cx("submit", notAJar.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("not a jar"), r.err());
    }
}
