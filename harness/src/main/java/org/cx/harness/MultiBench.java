package org.cx.harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.cx.api.SubmitOptions;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;

/**
 * Many consumers on one network (Ninf's multi-client experiment, and the share a small computation gets beside a
 * large one), on one server and one-worker producers in this process, with sleep leaves so that the producers'
 * time, not this machine's cores, is what they share.
 */
public final class MultiBench {
    private MultiBench() {
    }

    /**
     * What the bench runs; {@code windowMs}: how long each contention phase lasts; {@code timeline}: where to write
     * the timeline of the last small computation counted beside the large one (null: none recorded).
     */
    public record Settings(int producers, int bigN, int smallN, double leafMs, int idleRuns, long windowMs,
                           int throughputN, int throughputComputations, java.nio.file.Path timeline) {
        Load load() {
            return Load.ofMillis(Load.Kind.SLEEP, 0, leafMs, 0);
        }
    }

    /**
     * {@code consumers} consumers submitting small computations in a loop for a window, without and with a large
     * computation running.
     *
     * @param baselineMs  each small computation's latency, submission to result, without the large one
     * @param smallMs     the same beside the large one
     * @param bigPerS     the large one's tasks completed per second while the small ones ran
     * @param bigShare    its task time over the same interval, as a part of the producers' time: its progress
     * @param smallShare  the small ones' task time over the same interval, as a part of the producers' time
     */
    public record Contention(int consumers, List<Double> baselineMs, List<Double> smallMs, double bigPerS,
                             double bigShare, double smallShare) {
        /**
         * How many times more slowly the large computation progressed than alone, where its tasks took {@code
         * aloneShare} of the producers' time.
         */
        public double bigSlowdown(double aloneShare) {
            return aloneShare / bigShare;
        }

        /**
         * Its slowdown had it lost exactly the producers' time the small ones took: {@code A / (A - smallShare)}, A
         * its share alone (its own idle share alone, {@code 1 - A}, is not theirs to give it).
         */
        public double proportionalSlowdown(double aloneShare) {
            return aloneShare / Math.max(aloneShare - smallShare, 1e-3);
        }
    }

    /**
     * The figures of one run of the bench; {@code bigAloneShare}: the part of the producers' time the large
     * computation's tasks took alone.
     */
    public record Sample(double idleSmallMs, double bigAlonePerS, double bigAloneShare, List<Contention> contention,
                         double oneConsumerTasksPerS, double manyConsumersTasksPerS, List<Double> cancelMs) {
    }

    /** Runs every part on one network; {@code consumerCounts} are the numbers of small-computation consumers. */
    public static Sample run(Settings s, List<Integer> consumerCounts, PrintStream log) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("multi"), 1, s.producers(), 1,
                true, s.timeline() != null);
             Consumer main = cluster.consumer()) {
            for (int i = 0; i < 5; i++) {
                run(main, s.smallN(), s.load()); // warm up
            }
            List<Double> idle = new ArrayList<>();
            for (int i = 0; i < s.idleRuns(); i++) {
                idle.add(timed(() -> run(main, s.smallN(), s.load())));
            }
            double idleMs = median(idle);
            log.printf("  F(%d) alone: median %.1f ms over %d runs%n", s.smallN(), idleMs, s.idleRuns());
            List<Double> cancels = new ArrayList<>();
            Window alone = beside(cluster, main, s, 0, cancels);
            log.printf("  F(%d) alone: %.0f tasks/s, %.1f %% of the producers' time%n", s.bigN(), alone.bigPerS(),
                    100 * alone.bigShare());

            List<Contention> contention = new ArrayList<>();
            for (int consumers : consumerCounts) {
                Loops baseline = loops(cluster, s, consumers, System.nanoTime() + s.windowMs() * 1_000_000);
                Window with = beside(cluster, main, s, consumers, cancels);
                if (s.timeline() != null && consumers == consumerCounts.getLast()) {
                    Timeline.write(s.timeline(), cluster, with.loops().lastStartNanos(), with.loops().lastEndNanos());
                    log.printf("  timeline of the last F(%d) beside F(%d): %s%n", s.smallN(), s.bigN(), s.timeline());
                }
                Contention c = new Contention(consumers, baseline.latencies(), with.loops().latencies(),
                        with.bigPerS(), with.bigShare(), with.smallShare());
                contention.add(c);
                log.printf("  %d consumer(s) of F(%d): latency median %.1f ms alone, %.1f ms beside F(%d) (%.2f x; "
                                + "%.2f x F(%d) alone), max %.1f ms; they took %.1f %% of the producers' time, F(%d) "
                                + "%.1f %% (%.0f tasks/s; %.2f x slower, %.2f x of proportional)%n", consumers,
                        s.smallN(), median(c.baselineMs()), median(c.smallMs()), s.bigN(),
                        median(c.smallMs()) / median(c.baselineMs()), median(c.smallMs()) / idleMs, s.smallN(),
                        max(c.smallMs()), 100 * c.smallShare(), s.bigN(), 100 * c.bigShare(), c.bigPerS(),
                        c.bigSlowdown(alone.bigShare()),
                        c.bigSlowdown(alone.bigShare()) / c.proportionalSlowdown(alone.bigShare()));
            }

            long total = Fib.taskCount(s.throughputN()) * s.throughputComputations();
            double oneMs = timed(() -> {
                for (int i = 0; i < s.throughputComputations(); i++) {
                    run(main, s.throughputN(), s.load());
                }
            });
            int many = s.throughputComputations();
            double manyMs = timed(() -> inParallel(cluster, many,
                    consumer -> run(consumer, s.throughputN(), s.load())));
            double one = total / (oneMs / 1e3);
            double all = total / (manyMs / 1e3);
            log.printf("  %d x F(%d): one consumer after another %.0f tasks/s; %d consumers at once %.0f tasks/s "
                    + "(%.2f x)%n", many, s.throughputN(), one, many, all, all / one);
            log.printf("  cancel to the last task gone from server and producers: median %.0f ms, max %.0f ms%n",
                    median(cancels), max(cancels));
            return new Sample(idleMs, alone.bigPerS(), alone.bigShare(), contention, one, all, cancels);
        }
    }

    /**
     * Small computations' latencies (of those that ended within the window), the task time of all of them (those
     * still running at its end too: their tasks took the producers' time as well), and when the last one counted ran.
     */
    private record Loops(List<Double> latencies, long taskNanos, long lastStartNanos, long lastEndNanos) {
    }

    /**
     * From the window's start until the last small computation ended: the large computation's tasks completed per
     * second, and the parts of the producers' time its tasks and the small ones' took.
     */
    private record Window(double bigPerS, double bigShare, double smallShare, Loops loops) {
    }

    /**
     * Starts the large computation, lets it spread for a second, then has {@code consumers} consumers run small ones
     * for the window while counting its completed tasks and its task time; then cancels it, adding the time until none
     * of its tasks is left anywhere to {@code cancels}. Its task time is what the server applied in the interval less
     * the small ones': a count of tasks would weigh its instant decompositions as much as its leaves, and how many of
     * each it completes in a window depends on how far it has got.
     */
    private static Window beside(LocalCluster cluster, Consumer main, Settings s, int consumers, List<Double> cancels)
            throws Exception {
        Consumer.Pending<Long> big = main.submit(new Fib(s.bigN(), s.load()), SubmitOptions.defaults(), r -> { });
        long id = big.id();
        Thread.sleep(1_000); // the bench's own pacing: let it reach every producer
        TaskServerNode server = cluster.servers().getFirst();
        long start = System.nanoTime();
        long before = main.diagnose(id).get(30, TimeUnit.SECONDS).completed();
        long appliedBefore = server.status().execNanosApplied();
        Loops loops = loops(cluster, s, consumers, start + s.windowMs() * 1_000_000);
        long after = main.diagnose(id).get(30, TimeUnit.SECONDS).completed();
        long applied = server.status().execNanosApplied() - appliedBefore;
        long elapsed = System.nanoTime() - start;
        double producerNanos = (double) elapsed * s.producers();
        if (big.result().isDone()) {
            throw new IllegalStateException("F(" + s.bigN() + ") ended within the window: give a larger --big-n");
        }
        cancels.add(cancelMs(cluster, big));
        return new Window((after - before) / (elapsed / 1e9),
                (applied - loops.taskNanos()) / producerNanos, loops.taskNanos() / producerNanos, loops);
    }

    /** {@code consumers} consumers each submit small computations one after another until {@code deadline}. */
    private static Loops loops(LocalCluster cluster, Settings s, int consumers, long deadline) throws Exception {
        if (consumers == 0) {
            Thread.sleep(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
            return new Loops(List.of(), 0, 0, 0);
        }
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicLong taskNanos = new java.util.concurrent.atomic.AtomicLong();
        long[] last = new long[2];
        inParallel(cluster, consumers, consumer -> {
            while (System.nanoTime() < deadline) {
                long t0 = System.nanoTime();
                Consumer.Pending<Long> p = consumer.submit(new Fib(s.smallN(), s.load()), SubmitOptions.defaults(),
                        r -> { });
                check(p.result().get(600, TimeUnit.SECONDS), s.smallN());
                long t1 = System.nanoTime();
                taskNanos.addAndGet(p.summary().t1Nanos());
                if (t1 <= deadline) { // one that ended after the window is not counted
                    latencies.add((t1 - t0) / 1e6);
                    synchronized (last) {
                        last[0] = t0;
                        last[1] = t1;
                    }
                }
            }
        });
        synchronized (last) {
            return new Loops(List.copyOf(latencies), taskNanos.get(), last[0], last[1]);
        }
    }

    /** Cancels {@code big}; the time until no task of it is left on the server or any producer. */
    private static double cancelMs(LocalCluster cluster, Consumer.Pending<Long> big) throws Exception {
        TaskServerNode server = cluster.servers().getFirst();
        long start = System.nanoTime();
        big.cancel().get(30, TimeUnit.SECONDS);
        while (server.status().ready() > 0 || cluster.producers().stream().anyMatch(p -> p.cachedTasks() > 0)) {
            Thread.onSpinWait();
        }
        double ms = (System.nanoTime() - start) / 1e6;
        try {
            big.result().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
            // cancelled
        }
        return ms;
    }

    private interface ConsumerWork {
        void run(Consumer consumer) throws Exception;
    }

    /** Each of {@code n} consumers, connected first, runs {@code work} at once. */
    private static void inParallel(LocalCluster cluster, int n, ConsumerWork work) throws Exception {
        List<Consumer> consumers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int i = 0; i < n; i++) {
                consumers.add(cluster.consumer());
            }
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (Consumer c : consumers) {
                done.add(CompletableFuture.runAsync(() -> {
                    try {
                        work.run(c);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(3_600, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            consumers.forEach(Consumer::close);
        }
    }

    private static void run(Consumer consumer, int n, Load load) throws Exception {
        Consumer.Pending<Long> p = consumer.submit(new Fib(n, load), SubmitOptions.defaults(), r -> { });
        check(p.result().get(3_600, TimeUnit.SECONDS), n);
    }

    private static void check(long value, int n) {
        if (value != Fib.value(n)) {
            throw new IllegalStateException("F(" + n + ") came out as " + value);
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    private static double timed(Work work) throws Exception {
        long start = System.nanoTime();
        work.run();
        return (System.nanoTime() - start) / 1e6;
    }

    /** The largest of {@code values}, or NaN if there are none. */
    public static double max(List<Double> values) {
        return values.isEmpty() ? Double.NaN : Collections.max(values);
    }

    /** The median of {@code values}, or NaN if there are none. */
    public static double median(List<Double> values) {
        return values.isEmpty() ? Double.NaN : RecoveryBench.median(values);
    }
}
