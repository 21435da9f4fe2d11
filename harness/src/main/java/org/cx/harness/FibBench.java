package org.cx.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.producer.TaskBox;
import org.cx.producer.IdleLog;
import org.cx.producer.Producer;
import org.cx.server.ServerConfig;

/** Runs the Fibonacci DAG on a local cluster (or a ForkJoinPool) and reports the figures of {@code cx bench fib}. */
public final class FibBench {

    /**
     * What to run; {@code insecure}: plain connections instead of TLS with the local credentials (to compare);
     * {@code isolation}: where the producers run task code; {@code quorum}: producers of different owners that
     * must agree on each task (1: no validation; above 1 every producer holds a credential of its own).
     */
    public record Settings(int n, int servers, int producers, int workers, Load load, boolean prefetch,
                           boolean local, int warmup, int repeat, boolean insecure, TaskBox.Isolation isolation,
                           int quorum) {
        /** Over TLS, task code in the producers' JVM. */
        public Settings(int n, int servers, int producers, int workers, Load load, boolean prefetch, boolean local,
                        int warmup, int repeat) {
            this(n, servers, producers, workers, load, prefetch, local, warmup, repeat, false,
                    TaskBox.Isolation.IN_PROCESS, 1);
        }

        public Settings {
            if (n < 0 || n > 60) {
                throw new IllegalArgumentException("--n must be in 0..60, got " + n);
            }
            if (servers < 1 || servers > 64) {
                throw new IllegalArgumentException("--servers must be in 1..64, got " + servers);
            }
            if (producers < 1 || producers > 4096) {
                throw new IllegalArgumentException("--producers must be in 1..4096, got " + producers);
            }
            if (workers < 1 || workers > 1024) {
                throw new IllegalArgumentException("--workers must be in 1..1024, got " + workers);
            }
            if (warmup < 0) {
                throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
            }
            if (repeat < 1) {
                throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
            }
            if (quorum < 1 || quorum > org.cx.wire.Message.Submit.MAX_QUORUM || quorum > producers) {
                throw new IllegalArgumentException("--quorum must be in 1.." + org.cx.wire.Message.Submit.MAX_QUORUM
                        + " and at most the number of producers (" + producers + "), got " + quorum);
            }
        }
    }

    /** One measured run. Field names are those of the JSON object. */
    public record Outcome(int n, int servers, int producers, int workers, String load, boolean prefetch,
                          boolean local, long result, boolean correct, long tasks, long expectedTasks,
                          long executions, double wallS, double t1S, double efficiency, double ceiling,
                          double ceilingNominal, double tasksPerS, IdleLog.Split idle, double limitInitialShare,
                          double limitTerminationShare, double limitIdleInitialS, double serverCpuS,
                          double producerIoCpuS) {

        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("n", n);
            m.put("servers", servers);
            m.put("producers", producers);
            m.put("workers", workers);
            m.put("load", load);
            m.put("prefetch", prefetch);
            m.put("local", local);
            m.put("result", result);
            m.put("correct", correct);
            m.put("tasks", tasks);
            m.put("expected_tasks", expectedTasks);
            m.put("executions", executions);
            m.put("wall_s", wallS);
            m.put("t1_s", t1S);
            m.put("efficiency", efficiency);
            m.put("ceiling", ceiling);
            m.put("efficiency_over_ceiling", ceiling == 0 ? 0 : efficiency / ceiling);
            // The same limit with every task at its nominal load (the ceiling before the tasks' overrun).
            m.put("ceiling_nominal", ceilingNominal);
            m.put("tasks_per_s", tasksPerS);
            // Worker idle time during the run, summed over producers, split as in the paper's Fig. 6.
            m.put("idle_initial_s", idle.initialNanos() / 1e9);
            m.put("idle_steady_s", idle.steadyNanos() / 1e9);
            m.put("idle_termination_s", idle.terminationNanos() / 1e9);
            m.put("idle_s", idle.totalNanos() / 1e9);
            // The same split of the zero-overhead schedule's idle time, as shares: the limit for the ones above.
            m.put("limit_idle_initial_share", limitInitialShare);
            m.put("limit_idle_termination_share", limitTerminationShare);
            // The zero-overhead schedule's start-up idle in seconds, scaled to this run's T1: what idle_initial_s
            // has above it is the runtime's own cost of spreading the first tasks.
            m.put("limit_idle_initial_s", limitIdleInitialS);
            // CPU time of the servers' event loops and of the producers' I/O threads during the run: the cost of
            // the network beside the tasks themselves (on a small machine, what the network's messages queue for).
            m.put("server_cpu_s", serverCpuS);
            m.put("producer_io_cpu_s", producerIoCpuS);
            return m;
        }
    }

    private FibBench() {
    }

    /**
     * Runs {@code warmup} unmeasured computations then {@code repeat} measured ones on the same cluster; progress
     * lines go to {@code log}. Returns the measured runs in order.
     */
    public static List<Outcome> run(Settings s, PrintStream log) throws IOException, InterruptedException {
        return run(s, Duration.ZERO, log, null);
    }

    /**
     * As {@link #run(Settings, PrintStream)}, but after the {@code warmup} runs (if there are any) warms up further
     * until the JIT is quiet, for at most {@code untilQuiet} ({@link JitWarmUp}); if {@code timeline} is not null,
     * also writes the last measured run's timeline there ({@link Timeline}).
     */
    public static List<Outcome> run(Settings s, Duration untilQuiet, PrintStream log, Path timeline)
            throws IOException, InterruptedException {
        Load load = s.load();
        List<Outcome> runs = new ArrayList<>();
        if (s.local()) {
            for (int i = 0; i < s.warmup(); i++) {
                runLocal(s, load);
            }
            for (int i = 0; i < s.repeat(); i++) {
                runs.add(runLocal(s, load));
            }
            return runs;
        }
        ServerConfig config = (s.insecure() ? ServerConfig.defaults(null) : ServerConfig.defaults()).withName("bench");
        try (LocalCluster cluster = LocalCluster.start(config, s.servers(), s.producers(), s.workers(),
                s.prefetch(), timeline != null, TaskBox.defaults().withIsolation(s.isolation()), s.quorum() > 1);
             Consumer consumer = cluster.consumer()) {
            if (s.warmup() > 0 && load.kind() != Load.Kind.NONE) {
                // Loaded runs of a small n exercise the code too little to get it compiled: run it unloaded first.
                Settings unloaded = new Settings(UNLOADED_WARM_UP_N, s.servers(), s.producers(), s.workers(), Load.NONE,
                        s.prefetch(), false, 0, 1, s.insecure(), s.isolation(), s.quorum());
                log.printf("warm-up: %d unloaded runs of F(%d) ...%n", UNLOADED_WARM_UPS, unloaded.n());
                for (int i = 0; i < UNLOADED_WARM_UPS; i++) {
                    runOnce(unloaded, Load.NONE, consumer, cluster);
                }
            }
            for (int i = 0; i < s.warmup(); i++) {
                log.printf("warm-up %d/%d ...%n", i + 1, s.warmup());
                runOnce(s, load, consumer, cluster);
            }
            JitWarmUp.untilQuiet(() -> runOnce(s, load, consumer, cluster), 0,
                    s.warmup() > 0 ? untilQuiet : Duration.ZERO, log::println);
            Timed last = null;
            for (int i = 0; i < s.repeat(); i++) {
                last = runTimed(s, load, consumer, cluster);
                Outcome o = last.outcome();
                if (s.repeat() > 1) {
                    log.printf("run %d/%d: %s%n", i + 1, s.repeat(), describe(o));
                }
                runs.add(o);
            }
            if (timeline != null) {
                Timeline.write(timeline, cluster, last.startNanos(), last.endNanos());
                log.printf("timeline of the last run: %s (open it in https://ui.perfetto.dev or chrome://tracing)%n",
                        timeline);
            }
            for (var server : cluster.servers()) {
                log.println("server counters: " + server.status());
            }
            return runs;
        }
    }

    private static final int UNLOADED_WARM_UPS = 2;
    private static final int UNLOADED_WARM_UP_N = 20;

    /**
     * Whether measured run {@code i} of an A/B comparison is the B side (on): on, off, off, on, on, off …, so that
     * neither side always runs first in its pair and a drift in the machine falls on both alike.
     */
    public static boolean abOn(int i) {
        return (i % 2 == 0) == (i / 2 % 2 == 0);
    }

    /** The run with the median wall time (the lower middle one for an even count). */
    public static Outcome median(List<Outcome> runs) {
        List<Outcome> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(Outcome::wallS));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /**
     * Runs F(n) once on a cluster that is already up (and warmed up, if that matters) and measures it. The cluster
     * must run nothing else meanwhile: tasks and execution time are counted on its servers.
     */
    public static Outcome measure(Settings s, Consumer consumer, LocalCluster cluster) throws InterruptedException {
        return runOnce(s, s.load(), consumer, cluster);
    }

    private static Outcome runOnce(Settings s, Load load, Consumer consumer, LocalCluster cluster)
            throws InterruptedException {
        return runTimed(s, load, consumer, cluster).outcome();
    }

    /** A measured run and when it ran ({@code System.nanoTime()}, from submission to result). */
    private record Timed(Outcome outcome, long startNanos, long endNanos) {
    }

    private static Timed runTimed(Settings s, Load load, Consumer consumer, LocalCluster cluster)
            throws InterruptedException {
        long[] before = cluster.totals();
        long[] cpuBefore = cluster.ioCpuNanos();
        long start = System.nanoTime();
        Consumer.Pending<Long> computation = consumer.submitValidated(new Fib(s.n(), load), s.quorum());
        long value;
        try {
            value = computation.result().get(1, TimeUnit.HOURS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the computation failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no result within an hour", e);
        }
        long end = System.nanoTime();
        double wall = (end - start) / 1e9;
        // Tasks run on every server of the network: count them there (runs are one at a time).
        long[] after = cluster.totals();
        long[] cpuAfter = cluster.ioCpuNanos();
        IdleLog.Split idle = new IdleLog.Split(0, 0, 0);
        for (Producer p : cluster.producers()) {
            idle = idle.plus(p.idleLog().split(start, end));
        }
        return new Timed(outcome(s, load, value, after[0] - before[0], after[1] - before[1], wall,
                (after[2] - before[2]) / 1e9, idle, (cpuAfter[0] - cpuBefore[0]) / 1e9,
                (cpuAfter[1] - cpuBefore[1]) / 1e9), start, end);
    }

    private static Outcome outcome(Settings s, Load load, long value, long tasks, long executions, double wall,
                                   double t1, IdleLog.Split idle, double serverCpuS, double producerIoCpuS) {
        long expected = Fib.taskCount(s.n());
        int slots = s.producers() * s.workers();
        double efficiency = (t1 / slots) / wall;
        CeilingSimulator.Schedule nominal = limit(s.n(), slots, load);
        CeilingSimulator.Schedule limit = asRun(s.n(), slots, load, nominal, t1, tasks);
        return new Outcome(s.n(), s.servers(), s.producers(), s.workers(), load.kind().name().toLowerCase(),
                s.prefetch(), s.local(), value, value == Fib.value(s.n()) && tasks == expected, tasks, expected,
                executions, wall, t1, efficiency, limit.efficiency(), nominal.efficiency(), tasks / wall, idle,
                limit.initialShare(), limit.terminationShare(), limit.initialIdleAt(t1), serverCpuS,
                producerIoCpuS);
    }

    /**
     * The zero-overhead schedule of the tasks as they ran. A task runs a little longer than its nominal load (a
     * sleep overshoots by tens of microseconds; the worker encodes what the task stored), and T1, the numerator of
     * the efficiency, counts that time as work: the limit must count it too, or the ratio to it would charge the
     * scheduler for time no scheduler can save. The measured excess over the nominal T1 is spread evenly over the
     * tasks. With no load every task costs the same, and the nominal schedule is the limit.
     */
    static CeilingSimulator.Schedule asRun(int n, int slots, Load load, CeilingSimulator.Schedule nominal,
                                           double t1S, long tasks) {
        double excessNanos = tasks == 0 ? 0 : (t1S * 1e9 - nominal.t1()) / tasks;
        if (load.kind() == Load.Kind.NONE || nominal.tasks() != tasks || !(excessNanos > 0)) {
            return nominal;
        }
        return CeilingSimulator.simulate(n, slots, load.decomposeNanos() + excessNanos,
                load.leafNanos() + excessNanos, load.composeNanos() + excessNanos);
    }

    /**
     * The efficiency of a zero-overhead greedy schedule of F(n) on {@code slots} workers, its {@code tasks} tasks
     * taking {@code t1S} seconds in all (see {@link #asRun}).
     */
    public static double ceiling(int n, int slots, Load load, double t1S, long tasks) {
        return asRun(n, slots, load, limit(n, slots, load), t1S, tasks).efficiency();
    }

    /** The zero-overhead greedy schedule of F(n) on {@code slots} workers: the limit every run is compared with. */
    public static CeilingSimulator.Schedule limit(int n, int slots, Load load) {
        boolean timed = load.kind() != Load.Kind.NONE
                && (load.decomposeNanos() > 0 || load.leafNanos() > 0 || load.composeNanos() > 0);
        return timed
                ? CeilingSimulator.simulate(n, slots, load.decomposeNanos(), load.leafNanos(), load.composeNanos())
                : CeilingSimulator.simulate(n, slots, 1, 1, 1); // no load: every task costs the same
    }

    // ---------------------------------------------------------------- the same DAG on a ForkJoinPool

    private static Outcome runLocal(Settings s, Load load) {
        ForkJoinPool pool = new ForkJoinPool(s.producers() * s.workers());
        try {
            LongAdder tasks = new LongAdder();
            LongAdder busyNanos = new LongAdder();
            long start = System.nanoTime();
            long value = pool.invoke(new LocalFib(s.n(), load, tasks, busyNanos));
            double wall = (System.nanoTime() - start) / 1e9;
            long n = tasks.sum();
            return outcome(s, load, value, n, n, wall, busyNanos.sum() / 1e9, new IdleLog.Split(0, 0, 0), 0, 0);
        } finally {
            pool.shutdownNow();
        }
    }

    /** F(n) with the same decomposition, leaf and composition loads, as fork/join tasks. */
    private static final class LocalFib extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        private final int n;
        private final transient Load load;
        private final transient LongAdder tasks;
        private final transient LongAdder busyNanos;

        LocalFib(int n, Load load, LongAdder tasks, LongAdder busyNanos) {
            this.n = n;
            this.load = load;
            this.tasks = tasks;
            this.busyNanos = busyNanos;
        }

        @Override
        protected Long compute() {
            long t0 = System.nanoTime();
            if (n < 2) {
                load.leaf(1.0);
                account(t0);
                return (long) n;
            }
            load.decompose(1.0);
            account(t0);
            LocalFib a = new LocalFib(n - 1, load, tasks, busyNanos);
            LocalFib b = new LocalFib(n - 2, load, tasks, busyNanos);
            b.fork();
            long x = a.compute();
            long y = b.join();
            long t1 = System.nanoTime();
            load.compose(1.0);
            account(t1);
            return x + y;
        }

        private void account(long startNanos) {
            tasks.increment();
            busyNanos.add(System.nanoTime() - startNanos);
        }
    }

    /** Prints a one-line human summary. */
    public static String describe(Outcome o) {
        return String.format("F(%d) = %d%s | tasks %d (expected 3*F(n+1)-2 = %d) | executions %d | wall %.3f s | "
                        + "efficiency %.3f (ceiling %.3f, ratio %.3f) | %,.0f tasks/s | idle %.3f s: start-up %.1f%%, "
                        + "steady %.1f%%, wind-down %.1f%% (limit: %.1f%%, %.1f%%, %.1f%%)%s",
                o.n(), o.result(), o.correct() ? "" : " WRONG", o.tasks(), o.expectedTasks(), o.executions(),
                o.wallS(), o.efficiency(), o.ceiling(), o.ceiling() == 0 ? 0 : o.efficiency() / o.ceiling(),
                o.tasksPerS(), o.idle().totalNanos() / 1e9, percent(o.idle().initialNanos(), o.idle()),
                percent(o.idle().steadyNanos(), o.idle()), percent(o.idle().terminationNanos(), o.idle()),
                100 * o.limitInitialShare(), 100 * (1 - o.limitInitialShare() - o.limitTerminationShare()),
                100 * o.limitTerminationShare(), o.local() ? "" : String.format(
                        " | CPU: servers %.0f ms, producers' I/O %.0f ms", o.serverCpuS() * 1e3,
                        o.producerIoCpuS() * 1e3));
    }

    private static double percent(long part, IdleLog.Split idle) {
        return idle.totalNanos() == 0 ? 0 : 100.0 * part / idle.totalNanos();
    }
}
