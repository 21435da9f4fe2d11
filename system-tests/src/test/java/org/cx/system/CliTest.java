package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.cx.cli.AppJars;
import org.cx.cli.Cx;
import org.cx.examples.fib.Fib;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The cx command as users meet it. */
class CliTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run cx(String... args) {
        CommandLine cl = Cx.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void benchWritesEveryFieldToJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out/fib.json");
        Run r = cx("bench", "fib", "--n", "12", "--producers", "3", "--workers", "2", "--load", "spin",
                "--leaf-ms", "0.05", "--warmup", "0", "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        String text = Files.readString(json);
        for (String key : new String[] {"n", "servers", "producers", "workers", "load", "prefetch", "result",
                "correct", "tasks", "expected_tasks", "executions", "wall_s", "t1_s", "efficiency", "ceiling",
                "tasks_per_s", "idle_initial_s", "idle_steady_s", "idle_termination_s", "idle_s"}) {
            assertTrue(text.contains("\"" + key + "\":"), key + " missing from " + text);
        }
        assertTrue(text.contains("\"correct\": true"), text);
        assertTrue(text.contains("\"result\": 144"), text);
        double idle = number(text, "idle_s");
        double parts = number(text, "idle_initial_s") + number(text, "idle_steady_s")
                + number(text, "idle_termination_s");
        assertEquals(idle, parts, 1e-5, "the idle-time split adds up (the JSON rounds to microseconds)");
        assertTrue(idle <= 3 * 2 * number(text, "wall_s") + 1e-6, "idle within workers × wall: " + text);
    }

    @Test
    void estimateFitsTwoShortRunsAndChecksALongerOne() {
        Run r = cx("bench", "estimate", "--n1", "6", "--n2", "8", "--n", "10", "--load", "sleep", "--leaf-ms", "0.2");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("estimated T1 for F(10) (265 tasks)"), r.out());
        assertTrue(r.out().contains("estimate error"), r.out());
    }

    /** The first {@code "key": number} in {@code json}. */
    private static double number(String json, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + key + "\": ([-0-9.eE]+)").matcher(json);
        assertTrue(m.find(), key + " missing");
        return Double.parseDouble(m.group(1));
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
        Run help = cx("--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("cx demo"), help.out());
    }

    @Test
    void separateProcessesComputeTogether() throws Exception {
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String line = server.awaitLine("listening on", Duration.ofSeconds(30));
            String address = line.substring(line.lastIndexOf(' ') + 1);
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
                    }
                    """);

    /** The application's classes are in the jar only: the server and the producer get them from the bundle. */
    @Test
    void submitRunsAnApplicationJarThatNoProducerHasInstalled(@TempDir Path dir) throws Exception {
        Map<String, byte[]> entries = new TreeMap<>(Jars.compile(RANGE_SUM_APP, dir.resolve("build")));
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCX-Application: app.Main\n"
                .getBytes(StandardCharsets.US_ASCII));
        Path app = Files.write(dir.resolve("range-sum.jar"), AppJars.jar(entries));
        try (ChildProcess server = ChildProcess.start("server", Cx.class.getName(), "server", "--port", "0")) {
            String line = server.awaitLine("listening on", Duration.ofSeconds(30));
            String address = line.substring(line.lastIndexOf(' ') + 1);
            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--server",
                    address, "--workers", "2")) {
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                Run r = cx("submit", app.toString(), "--server", address, "1000");
                assertEquals(0, r.exit(), r.err());
                assertTrue(r.err().contains("finished with status 0"), r.err());
                assertTrue(r.err().contains("uploaded " + String.format("%,d", Files.size(app)) + " bytes"), r.err());
            }
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
