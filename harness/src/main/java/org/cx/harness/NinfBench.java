package org.cx.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.consumer.CxExecutor;
import org.cx.examples.ep.Ep;
import org.cx.examples.linpack.Linpack;
import org.cx.server.ServerConfig;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The Ninf paper's Linpack benchmarks on CX: a call of {@link Linpack#solve} on a producer, the caller shipping the
 * matrix and getting the solution back ({@link CxExecutor#call}), against the same solve in the caller's thread for
 * n = 100 … 1600; and 1 to 16 clients that each, every 3 s, call with probability ½, for their mean response time
 * and the aggregate throughput. One server and one producer in this process.
 */
public final class NinfBench {
    private NinfBench() {
    }

    /** One matrix size: the median time of a local solve and of a CX call. */
    public record Single(int n, double localMs, double callMs) {
        public double localMflops() {
            return Linpack.flops(n) / localMs / 1e3;
        }

        public double callMflops() {
            return Linpack.flops(n) / callMs / 1e3;
        }
    }

    /**
     * One client count: what the calls made in the run took and did; the aggregate is their operations over the time
     * from the first tick to the last answer.
     */
    public record Multi(String work, int clients, int calls, double meanResponseMs, double maxResponseMs,
                        double meanMops, double aggregateMops) {
    }

    /** What a client calls: a name, the operations of one call, and the call itself. */
    public record Work(String name, double operations, Call call) {
    }

    /** One call on {@code executor}, its inputs drawn from {@code seed}; returns its time in milliseconds. */
    @FunctionalInterface
    public interface Call {
        double time(CxExecutor executor, long seed) throws InterruptedException, ExecutionException;
    }

    /** Linpack of size n: the matrix goes with the call; its flops. */
    public static Work linpack(int n) {
        return new Work("Linpack n = " + n, Linpack.flops(n), (executor, seed) -> call(executor, n, seed));
    }

    /** EP of 2^m pairs: nothing goes with the call but m; 2^(m+1) random numbers, as Ninf counts them. */
    public static Work ep(int m) {
        return new Work("EP m = " + m, Math.pow(2, m + 1), (executor, seed) -> {
            long start = System.nanoTime();
            Ep.Result r = (Ep.Result) executor.call(Ep.class, "call", m).get();
            double ms = (System.nanoTime() - start) / 1e6;
            if (!Ep.verify(m, r)) {
                throw new IllegalStateException("EP of size " + m + " does not match the NPB reference");
            }
            return ms;
        });
    }

    /** Local and CX-call times of Linpack at each size, medians of {@code repeats}, on one producer of one worker. */
    public static List<Single> single(int[] sizes, int repeats, PrintStream log) throws Exception {
        List<Single> rows = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ninf"), 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            CxExecutor executor = CxExecutor.on(consumer);
            for (int n : sizes) {
                call(executor, n, 1); // warm up this size's path
                solveHere(n, 1);
                List<Double> local = new ArrayList<>();
                List<Double> remote = new ArrayList<>();
                for (int r = 0; r < repeats; r++) { // interleaved
                    local.add(solveHere(n, r));
                    remote.add(call(executor, n, r));
                }
                Single row = new Single(n, DataBench.median(local), DataBench.median(remote));
                log.printf("  n = %d: local %.1f ms (%.0f Mflops), CX call %.1f ms (%.0f Mflops)%n", n, row.localMs(),
                        row.localMflops(), row.callMs(), row.callMflops());
                rows.add(row);
            }
            executor.shutdown();
        }
        return rows;
    }

    private static double solveHere(int n, long seed) {
        double[] a = Linpack.matrix(n, seed);
        double[] b = Linpack.onesRhs(a, n);
        long start = System.nanoTime();
        double[] x = Linpack.solve(n, a, b);
        double ms = (System.nanoTime() - start) / 1e6;
        check(n, x);
        return ms;
    }

    /** The time of one call, from shipping the matrix to having the solution. */
    private static double call(CxExecutor executor, int n, long seed) throws InterruptedException, ExecutionException {
        double[] a = Linpack.matrix(n, seed);
        double[] b = Linpack.onesRhs(a, n);
        long start = System.nanoTime();
        double[] x = (double[]) executor.call(Linpack.class, "solve", n, a, b).get();
        double ms = (System.nanoTime() - start) / 1e6;
        check(n, x);
        return ms;
    }

    private static void check(int n, double[] x) {
        double error = Linpack.errorFromOnes(x);
        if (!(error < 1e-6)) {
            throw new IllegalStateException("Linpack of size " + n + " solved with an error of " + error);
        }
    }

    /**
     * {@code clients} clients, each with its own connection, that call Linpack of size {@code n} every
     * {@code interval} with probability {@code p} for {@code duration}, on one producer of {@code workers} workers.
     */
    public static List<Multi> multi(Work work, int[] clients, int workers, Duration duration, Duration interval,
                                    double p, long seed, PrintStream log) throws Exception {
        List<Multi> rows = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ninf"), 1, workers, true)) {
            for (int c : clients) {
                List<List<Double>> times = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                long end = start + duration.toNanos();
                for (int i = 0; i < c; i++) {
                    List<Double> mine = new ArrayList<>();
                    times.add(mine);
                    Consumer consumer = cluster.consumer();
                    SplittableRandom random = new SplittableRandom(seed * 31 + c * 1000L + i);
                    Thread t = new Thread(() -> client(consumer, work, start, end, interval.toNanos(), p, random, mine),
                            "ninf-client-" + i);
                    threads.add(t);
                    t.start();
                }
                for (Thread t : threads) {
                    t.join();
                }
                double spanSeconds = Math.max(end, System.nanoTime()) - start; // the last calls end after the run
                spanSeconds /= 1e9;
                List<Double> all = times.stream().flatMap(List::stream).toList();
                double mean = all.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
                double max = all.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
                double mops = all.stream().mapToDouble(ms -> work.operations() / ms / 1e3).average()
                        .orElse(Double.NaN);
                double aggregate = all.size() * work.operations() / spanSeconds / 1e6;
                Multi row = new Multi(work.name(), c, all.size(), mean, max, mops, aggregate);
                log.printf("  %s, %2d clients: %3d calls, response mean %.0f ms (max %.0f), %.0f Mops per call,"
                        + " %.0f Mops in all%n", work.name(), c, all.size(), mean, max, mops, aggregate);
                rows.add(row);
            }
        }
        return rows;
    }

    /** One client: at each tick, with probability {@code p}, a call; its response times go to {@code times}. */
    private static void client(Consumer consumer, Work work, long start, long end, long intervalNanos, double p,
                               SplittableRandom random, List<Double> times) {
        try (consumer) {
            CxExecutor executor = CxExecutor.on(consumer);
            for (long tick = start; tick < end; tick += intervalNanos) {
                long wait = tick - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // the client's think time, as Ninf's clients had
                }
                if (random.nextDouble() < p) {
                    times.add(work.call().time(executor, random.nextLong()));
                }
            }
            executor.shutdown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a call of " + work.name() + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Mflops of the local solve and the CX call against n, as Ninf's Figure 3 draws them. */
    public static Path chart(List<Single> rows, Path dir) throws IOException {
        XYSeries local = new XYSeries("local");
        XYSeries call = new XYSeries("CX call");
        for (Single r : rows) {
            local.add(r.n(), r.localMflops());
            call.add(r.n(), r.callMflops());
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(local);
        data.addSeries(call);
        JFreeChart chart = ChartFactory.createXYLineChart("Linpack: a CX call against a local solve",
                "matrix size n", "Mflops", data, PlotOrientation.VERTICAL, true, false, false);
        Files.createDirectories(dir);
        Path file = dir.resolve("linpack-call.png");
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 800, 500);
        return file;
    }

    /** Mean response time and aggregate throughput against the number of clients. */
    public static Path multiChart(List<Multi> rows, Path dir, String fileName) throws IOException {
        XYSeries response = new XYSeries("mean response (s)");
        XYSeries aggregate = new XYSeries("Gops/s in all");
        for (Multi r : rows) {
            response.add(r.clients(), r.meanResponseMs() / 1e3);
            aggregate.add(r.clients(), r.aggregateMops() / 1e3);
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(response);
        data.addSeries(aggregate);
        JFreeChart chart = ChartFactory.createXYLineChart(rows.get(0).work()
                        + ": clients calling every 3 s with probability 1/2", "clients", "", data,
                PlotOrientation.VERTICAL, true, false, false);
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 800, 500);
        return file;
    }
}
