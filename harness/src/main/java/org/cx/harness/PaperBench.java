package org.cx.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.server.ServerConfig;

/**
 * {@code cx bench paper}: the experiments of the CX paper's §5, on loopback, with the task times of its Table 2
 * forty times shorter and slept rather than computed (so that 64 producers fit on a few cores):
 * <ol>
 *   <li>scaling (Fig. 5 and 6): F(n) for each n, each workload and each number of servers, 64 producers;</li>
 *   <li>prefetch: F(11) and F(15) with prefetch on and off, on 16 producers as in the paper;</li>
 *   <li>mixed processor types: the paper's Quad producers were 1720/1377 times as fast as its Dual 512 ones;
 *       a few producers get that speed, and the speedup is taken against the paper's composite base case.</li>
 * </ol>
 * Every run is checked (the value of F(n) and the task count); {@link PaperReport} turns the points into
 * {@code results.json}, {@code report.md} and the charts.
 */
public final class PaperBench {

    /** A synthetic workload: the paper's Table 2 times on its Dual 512 producers, divided by 40. */
    public record Workload(int number, double decomposeMs, double leafMs, double composeMs) {
        Load load(double scale) {
            return Load.ofMillis(Load.Kind.SLEEP, decomposeMs * scale, leafMs * scale, composeMs * scale);
        }
    }

    /** Workload 1: D and C 41 ms, B 1720 ms in the paper. Workload 2: B 3650 ms. */
    public static final List<Workload> WORKLOADS = List.of(new Workload(1, 1, 43, 1), new Workload(2, 1, 91, 1));

    /** The paper's Quad producers ran Table 2's tasks this many times as fast as its Dual 512 ones. */
    public static final double QUAD_SPEED = 1720.0 / 1377.0;

    /**
     * What to run.
     *
     * @param nMin              smallest n of the scaling and mixed-speed experiments
     * @param nMax              largest n
     * @param servers           the network sizes to compare; must include 1, the reference
     * @param producers         one-worker producers, spread over the servers
     * @param repeat            measured runs per point (the median by wall time is the point's figure)
     * @param timeScale         multiplies every task time (1 = the paper's times / 40; smaller only for tests)
     * @param prefetchProducers producers of the prefetch experiment (16 in the paper)
     * @param prefetchNs        the n of the prefetch experiment (11 and 15 in the paper)
     * @param fastProducers     how many of the mixed-speed experiment's producers run at {@link #QUAD_SPEED}
     * @param untilQuietS       before each series, warm up until the JIT is quiet, for at most this many seconds
     *                          ({@link JitWarmUp}; 0: a fixed number of warm-up runs)
     */
    public record Profile(String name, int nMin, int nMax, List<Integer> servers, int producers, int repeat,
                          double timeScale, int prefetchProducers, List<Integer> prefetchNs, int fastProducers,
                          int untilQuietS) {
        public Profile {
            if (nMin < 2 || nMax < nMin || nMax > 30) {
                throw new IllegalArgumentException("need 2 <= --n-min <= --n-max <= 30, got " + nMin + ".." + nMax);
            }
            if (servers.isEmpty() || !servers.contains(1) || servers.stream().anyMatch(s -> s < 1 || s > 64)) {
                throw new IllegalArgumentException("--servers must list network sizes in 1..64 and include 1 "
                        + "(the reference the others are compared with), got " + servers);
            }
            if (producers < 1 || prefetchProducers < 1 || repeat < 1) {
                throw new IllegalArgumentException("--producers, --prefetch-producers and --repeat must be positive");
            }
            if (!(timeScale > 0) || timeScale > 10) {
                throw new IllegalArgumentException("--time-scale must be in (0, 10], got " + timeScale);
            }
            if (fastProducers < 0 || fastProducers > producers) {
                throw new IllegalArgumentException("--fast-producers must be in 0.." + producers);
            }
            if (untilQuietS < 0) {
                throw new IllegalArgumentException("--warmup-until-quiet must be >= 0 seconds, got " + untilQuietS);
            }
            servers = List.copyOf(servers);
            prefetchNs = List.copyOf(prefetchNs);
        }

        /**
         * The paper's experiments: n = 13..18, 1, 3 and 7 servers, 64 producers, median of 3 runs, each series after
         * the JIT is quiet (at most 60 s of warm-up per series).
         */
        public static Profile full() {
            return new Profile("full", 13, 18, List.of(1, 3, 7), 64, 3, 1.0, 16, List.of(11, 15), 4, 60);
        }

        /** The same points, one run each, after a fixed warm-up. */
        public static Profile quick() {
            return new Profile("quick", 13, 18, List.of(1, 3, 7), 64, 1, 1.0, 16, List.of(11, 15), 4, 0);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("n_min", nMin);
            m.put("n_max", nMax);
            m.put("servers", servers);
            m.put("producers", producers);
            m.put("repeat", repeat);
            m.put("time_scale", timeScale);
            m.put("prefetch_producers", prefetchProducers);
            m.put("prefetch_n", prefetchNs);
            m.put("fast_producers", fastProducers);
            m.put("warmup_until_quiet_s", untilQuietS);
            m.put("fast_speed", QUAD_SPEED);
            return m;
        }
    }

    /** The experiments, in the order they run. */
    public enum Experiment { SCALING, PREFETCH, MIXED }

    /**
     * One point of a chart: its runs and the median by wall time. For the mixed-speed experiment the median's
     * {@code t1S}, {@code efficiency} and {@code ceiling} are those of the composite base case.
     */
    public record Point(Experiment experiment, int workload, FibBench.Outcome median, List<FibBench.Outcome> runs) {

        public int n() {
            return median.n();
        }

        public int servers() {
            return median.servers();
        }

        public double ratio() {
            return median.ceiling() == 0 ? 0 : median.efficiency() / median.ceiling();
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("experiment", experiment.name().toLowerCase());
            m.put("workload", workload);
            m.putAll(median.toMap());
            m.put("runs", runs.stream().map(FibBench.Outcome::toMap).toList());
            return m;
        }
    }

    /** Everything one invocation measured. */
    public record Results(Profile profile, List<Point> points, double elapsedS) {

        public List<Point> of(Experiment e, int workload, int servers) {
            return points.stream().filter(p -> p.experiment() == e && p.workload() == workload
                    && p.servers() == servers).toList();
        }

        public boolean allCorrect() {
            return points.stream().allMatch(p -> p.runs().stream().allMatch(FibBench.Outcome::correct));
        }
    }

    private final Profile profile;
    private final PrintWriter log;
    private final long startNanos = System.nanoTime();
    private final double expectedS;
    private double doneExpectedS;
    private int pointsDone;
    private final int pointsTotal;
    private final List<Point> points = new ArrayList<>();
    private final Set<LocalCluster> warmed = Collections.newSetFromMap(new IdentityHashMap<>());

    private PaperBench(Profile profile, PrintWriter log) {
        this.profile = profile;
        this.log = log;
        int ns = profile.nMax() - profile.nMin() + 1;
        this.pointsTotal = ns * WORKLOADS.size() * profile.servers().size() + 2 * profile.prefetchNs().size()
                + (profile.fastProducers() > 0 ? ns : 0);
        double expected = 0;
        for (int n = profile.nMin(); n <= profile.nMax(); n++) {
            for (Workload w : WORKLOADS) {
                expected += profile.servers().size() * (profile.repeat() + 0.2) * idealSeconds(n, w, profile.producers());
            }
            if (profile.fastProducers() > 0) {
                expected += (profile.repeat() + 0.2) * idealSeconds(n, WORKLOADS.get(0), profile.producers());
            }
        }
        for (int n : profile.prefetchNs()) {
            expected += 2 * (profile.repeat() + 0.2) * idealSeconds(n, WORKLOADS.get(0), profile.prefetchProducers());
        }
        this.expectedS = expected;
    }

    /** Runs every experiment of {@code profile}, printing a progress line per point to {@code log}. */
    public static Results run(Profile profile, PrintWriter log) throws IOException, InterruptedException {
        return new PaperBench(profile, log).runAll();
    }

    private Results runAll() throws IOException, InterruptedException {
        log.printf("cx bench paper (%s): %d points, about %s of computing (loads scaled by %s)%n", profile.name(),
                pointsTotal, minutes(expectedS), profile.timeScale());
        warmUpJvm();
        for (int servers : profile.servers()) {
            try (LocalCluster cluster = LocalCluster.start(config(), servers, profile.producers(), 1, true);
                 Consumer consumer = cluster.consumer()) {
                for (Workload w : WORKLOADS) {
                    warmUp(cluster, consumer, w, servers, profile.producers(), true);
                    for (int n = profile.nMin(); n <= profile.nMax(); n++) {
                        measure(Experiment.SCALING, w, settings(n, servers, profile.producers(), w, true), cluster,
                                consumer);
                    }
                }
            }
        }
        Workload w1 = WORKLOADS.get(0);
        for (boolean prefetch : new boolean[] {true, false}) {
            try (LocalCluster cluster = LocalCluster.start(config(), 1, profile.prefetchProducers(), 1, prefetch);
                 Consumer consumer = cluster.consumer()) {
                warmUp(cluster, consumer, w1, 1, profile.prefetchProducers(), prefetch);
                for (int n : profile.prefetchNs()) {
                    measure(Experiment.PREFETCH, w1, settings(n, 1, profile.prefetchProducers(), w1, prefetch),
                            cluster, consumer);
                }
            }
        }
        if (profile.fastProducers() > 0) {
            runMixed(w1);
        }
        return new Results(profile, List.copyOf(points), (System.nanoTime() - startNanos) / 1e9);
    }

    /** The mixed-speed experiment: one server, the last {@code fastProducers} producers at {@link #QUAD_SPEED}. */
    private void runMixed(Workload w) throws IOException, InterruptedException {
        double[] speeds = speeds();
        try (LocalCluster cluster = LocalCluster.start(config(), 1, 0, 1, true)) {
            for (double speed : speeds) {
                cluster.addProducer(0, 1, true, speed);
            }
            try (Consumer consumer = cluster.consumer()) {
                warmUp(cluster, consumer, w, 1, speeds.length, true);
                for (int n = profile.nMin(); n <= profile.nMax(); n++) {
                    int k = n;
                    // The paper's T1(i) on a processor of type i: the reference (speed 1) run's T1 divided by i's speed.
                    double referenceT1 = points.stream().filter(p -> p.experiment() == Experiment.SCALING
                            && p.workload() == w.number() && p.servers() == 1 && p.n() == k)
                            .findFirst().orElseThrow().median().t1S();
                    FibBench.Settings s = settings(n, 1, speeds.length, w, true);
                    List<FibBench.Outcome> runs = new ArrayList<>();
                    for (int r = 0; r < profile.repeat(); r++) {
                        runs.add(composite(FibBench.measure(s, consumer, cluster), referenceT1, speeds, s));
                    }
                    record(Experiment.MIXED, w, runs);
                }
            }
        }
    }

    /** Producer speeds of the mixed experiment: the reference speed, then the fast ones. */
    double[] speeds() {
        double[] speeds = new double[profile.producers()];
        Arrays.fill(speeds, 1.0);
        Arrays.fill(speeds, speeds.length - profile.fastProducers(), speeds.length, QUAD_SPEED);
        return speeds;
    }

    /**
     * The run against the paper's composite base case: T1(p1..pk) = sum of p_i T1(i) / p, with T1(i) = T1 / speed_i;
     * efficiency = (T1(p1..pk) / p) / Tp; the ceiling from a greedy schedule on workers of the same speeds, at the
     * nominal task times (the composite T1 is itself derived, not measured per task).
     */
    static FibBench.Outcome composite(FibBench.Outcome o, double referenceT1, double[] speeds, FibBench.Settings s) {
        double inverseSum = 0;
        for (double speed : speeds) {
            inverseSum += 1 / speed;
        }
        double compositeT1 = referenceT1 * inverseSum / speeds.length;
        Load load = s.load();
        CeilingSimulator.Schedule limit = CeilingSimulator.simulate(o.n(), speeds, load.decomposeNanos(),
                load.leafNanos(), load.composeNanos());
        return new FibBench.Outcome(o.n(), o.servers(), o.producers(), o.workers(), o.load(), o.prefetch(),
                o.local(), o.result(), o.correct(), o.tasks(), o.expectedTasks(), o.executions(), o.wallS(),
                compositeT1, compositeT1 / speeds.length / o.wallS(), limit.efficiency(), limit.efficiency(),
                o.tasksPerS(), o.idle(), limit.initialShare(), limit.terminationShare(),
                limit.initialIdleAt(compositeT1), o.serverCpuS(), o.producerIoCpuS());
    }

    /**
     * Unmeasured runs before a cluster's first point: twice F(n) without load (tens of thousands of tasks through
     * every server and producer, so that the JIT has compiled the paths the measured runs take; measured: without
     * them the first point of a cluster lost up to 6 % of its efficiency), then the smallest point a few times.
     */
    private void warmUp(LocalCluster cluster, Consumer consumer, Workload w, int servers, int producers,
                        boolean prefetch) throws InterruptedException {
        if (warmed.add(cluster)) {
            FibBench.Settings noLoad = new FibBench.Settings(Math.min(20, profile.nMax() + 2), servers, producers, 1,
                    Load.NONE, prefetch, false, 0, 1);
            for (int i = 0; i < 2; i++) {
                FibBench.measure(noLoad, consumer, cluster);
            }
        }
        FibBench.Settings smallest = settings(profile.nMin(), servers, producers, w, prefetch);
        String[] last = {null};
        JitWarmUp.untilQuiet(() -> FibBench.measure(smallest, consumer, cluster), LOADED_WARM_UPS,
                Duration.ofSeconds(profile.untilQuietS()), line -> last[0] = line);
        if (last[0] != null) {
            log.printf("%d server%s, workload %d: %s%n", servers, servers == 1 ? "" : "s", w.number(), last[0]);
            log.flush();
        }
    }

    /**
     * Loaded runs of the smallest point before each series, at least; then more until the JIT is quiet, if the
     * profile says so. With one, that point measured about 0.01 below what {@code cx bench fib} gives after five
     * (F(13), workload 1, 1 server: 0.953-0.961 against 0.969).
     */
    private static final int LOADED_WARM_UPS = 3;

    /**
     * Runs every code path once on the largest network before any series, so that no series is measured while the
     * JIT is still compiling. Without it the series measured first ran on a cold JVM: 1 server, F(13), workload 1
     * got 0.941-0.956 of the ceiling measured first, 0.978-0.979 after this warm-up.
     */
    private void warmUpJvm() throws IOException, InterruptedException {
        int servers = Collections.max(profile.servers());
        log.printf("warming up the JVM on %d server%s ...%n", servers, servers == 1 ? "" : "s");
        log.flush();
        try (LocalCluster cluster = LocalCluster.start(config(), servers, profile.producers(), 1, true);
             Consumer consumer = cluster.consumer()) {
            for (Workload w : WORKLOADS) {
                warmUp(cluster, consumer, w, servers, profile.producers(), true);
            }
            for (int i = 0; i < JVM_WARM_UPS; i++) {
                FibBench.measure(settings(profile.nMin(), servers, profile.producers(), WORKLOADS.get(0), true),
                        consumer, cluster);
            }
        }
    }

    private static final int JVM_WARM_UPS = 10;

    private void measure(Experiment e, Workload w, FibBench.Settings s, LocalCluster cluster, Consumer consumer)
            throws InterruptedException {
        List<FibBench.Outcome> runs = new ArrayList<>();
        for (int r = 0; r < profile.repeat(); r++) {
            runs.add(FibBench.measure(s, consumer, cluster));
        }
        record(e, w, runs);
    }

    private void record(Experiment e, Workload w, List<FibBench.Outcome> runs) {
        Point p = new Point(e, w.number(), FibBench.median(runs), List.copyOf(runs));
        points.add(p);
        pointsDone++;
        FibBench.Outcome o = p.median();
        doneExpectedS += (profile.repeat() + 0.2) * idealSeconds(o.n(), w, o.producers());
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        double left = doneExpectedS == 0 ? 0 : (expectedS - doneExpectedS) * elapsed / doneExpectedS;
        log.printf("[%d/%d] %-8s workload %d, %d server%s, %d producers%s, F(%d): efficiency %.3f, ceiling %.3f, "
                        + "ratio %.3f%s | %s elapsed, about %s left%n", pointsDone, pointsTotal,
                e.name().toLowerCase(), w.number(), o.servers(), o.servers() == 1 ? "" : "s", o.producers(),
                e == Experiment.PREFETCH ? (o.prefetch() ? ", prefetch on" : ", prefetch off") : "", o.n(),
                o.efficiency(), o.ceiling(), p.ratio(), o.correct() ? "" : " WRONG RESULT", minutes(elapsed),
                minutes(left));
        log.flush();
    }

    private FibBench.Settings settings(int n, int servers, int producers, Workload w, boolean prefetch) {
        return new FibBench.Settings(n, servers, producers, 1, w.load(profile.timeScale()), prefetch, false, 0, 1);
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().withName("paper");
    }

    /** Wall time of one run of F(n) on {@code producers} producers if the schedule were perfect. */
    private double idealSeconds(int n, Workload w, int producers) {
        long leaves = Fib.value(n + 1);
        long others = Fib.taskCount(n) - leaves;
        double t1Ms = (leaves * w.leafMs() + others / 2.0 * (w.decomposeMs() + w.composeMs())) * profile.timeScale();
        double ceiling = CeilingSimulator.simulate(n, producers, w.decomposeMs(), w.leafMs(), w.composeMs())
                .efficiency();
        return t1Ms / 1000 / producers / ceiling;
    }

    public static String minutes(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + " s" : TimeUnit.SECONDS.toMinutes(s) + " min " + (s % 60) + " s";
    }
}
