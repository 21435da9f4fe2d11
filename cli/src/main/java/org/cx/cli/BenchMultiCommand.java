package org.cx.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.MultiBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench multi}: many consumers on one network, each figure against a baseline in the same run. */
@Command(name = "multi", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures many consumers on one network (1 server, --producers one-worker producers in this",
            "process, leaves that sleep --leaf-ms):",
            "  latency:    N consumers (each of --consumers) submitting F(--small-n) one after another for",
            "              --window, without and then beside F(--big-n); and how much more slowly the large one",
            "              progressed beside them (the producers' time its tasks took, against alone), with the",
            "              share of the producers' time the small ones took; proportional is A / (A - that share),",
            "              A the share its own tasks took alone: it lost just what they took;",
            "  throughput: --computations computations of F(--throughput-n), by one consumer one after another and",
            "              by as many consumers at once;",
            "  cancel:     from cancelling F(--big-n) (at the end of each window) to the last of its tasks gone",
            "              from the server and the producers' caches.",
            "Runs everything --runs times and prints the medians."})
final class BenchMultiCommand extends Printing implements Callable<Integer> {
    @Option(names = "--producers", defaultValue = "64", description = "Producers. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--big-n", defaultValue = "25", paramLabel = "N",
            description = "The large computation, F(N); it must outlast a window. Default: ${DEFAULT-VALUE}.")
    int bigN;

    @Option(names = "--small-n", defaultValue = "12", paramLabel = "N",
            description = "The small computations, F(N). Default: ${DEFAULT-VALUE}.")
    int smallN;

    @Option(names = "--leaf-ms", defaultValue = "10", paramLabel = "MS",
            description = "How long each leaf sleeps. Default: ${DEFAULT-VALUE}.")
    double leafMs;

    @Option(names = "--consumers", defaultValue = "1,4,16", split = ",", paramLabel = "N",
            description = "Numbers of small-computation consumers. Default: ${DEFAULT-VALUE}.")
    List<Integer> consumers;

    @Option(names = "--window", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "How long each latency phase lasts. Default: ${DEFAULT-VALUE}.")
    java.time.Duration window;

    @Option(names = "--idle-runs", defaultValue = "30", paramLabel = "N",
            description = "Runs of one small computation on the idle network. Default: ${DEFAULT-VALUE}.")
    int idleRuns;

    @Option(names = "--throughput-n", defaultValue = "16", paramLabel = "N",
            description = "Each throughput computation, F(N). Default: ${DEFAULT-VALUE}.")
    int throughputN;

    @Option(names = "--computations", defaultValue = "16", paramLabel = "N",
            description = "Throughput computations (and consumers at once). Default: ${DEFAULT-VALUE}.")
    int computations;

    @Option(names = "--runs", defaultValue = "3", description = "Runs of the whole bench. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(names = "--timeline", paramLabel = "FILE", description = "Record what the server and producers did and "
            + "write the timeline of the last small computation beside the large one (the last number of consumers, "
            + "last run) to FILE, for https://ui.perfetto.dev or scripts/timeline-idle.py.")
    java.nio.file.Path timeline;

    @Override
    public Integer call() throws Exception {
        if (producers < 1 || bigN < 2 || smallN < 2 || throughputN < 2 || leafMs < 0 || idleRuns < 1
                || computations < 1 || runs < 1 || !window.isPositive() || consumers.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("every count, size and the window must be positive (F(N) needs N >= 2)");
        }
        MultiBench.Settings settings = new MultiBench.Settings(producers, bigN, smallN, leafMs, idleRuns,
                window.toMillis(), throughputN, computations, timeline);
        List<MultiBench.Sample> samples = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            System.err.printf("run %d of %d%n", i + 1, runs);
            samples.add(MultiBench.run(settings, consumers, System.err));
        }
        out().printf("%d producers, leaves of %.1f ms, windows of %s; medians of %d runs%n", producers, leafMs,
                window, runs);
        out().printf("F(%d) alone: %.1f ms; F(%d) alone: %.0f tasks/s, %.1f %% of the producers' time%n", smallN,
                median(samples, MultiBench.Sample::idleSmallMs), bigN,
                median(samples, MultiBench.Sample::bigAlonePerS),
                100 * median(samples, MultiBench.Sample::bigAloneShare));
        for (int c = 0; c < consumers.size(); c++) {
            int k = c;
            double baseline = median(samples, s -> MultiBench.median(s.contention().get(k).baselineMs()));
            double beside = median(samples, s -> MultiBench.median(s.contention().get(k).smallMs()));
            double ratio = median(samples, s -> MultiBench.median(s.contention().get(k).smallMs())
                    / MultiBench.median(s.contention().get(k).baselineMs()));
            double slowdown = median(samples, s -> s.contention().get(k).bigSlowdown(s.bigAloneShare()));
            double share = median(samples, s -> s.contention().get(k).smallShare());
            double proportional = median(samples,
                    s -> s.contention().get(k).proportionalSlowdown(s.bigAloneShare()));
            double ofProportional = median(samples, s -> s.contention().get(k).bigSlowdown(s.bigAloneShare())
                    / s.contention().get(k).proportionalSlowdown(s.bigAloneShare()));
            out().printf("%2d consumer(s) of F(%d): latency %.1f ms without F(%d), %.1f ms beside it: %.2f x (%.2f x "
                            + "one F(%d) alone); F(%d) %.2f x slower while they took %.1f %% of the producers' time "
                            + "(proportional: %.2f x; %.2f x of it)%n", consumers.get(k), smallN, baseline, bigN,
                    beside, ratio, beside / median(samples, MultiBench.Sample::idleSmallMs), smallN, bigN, slowdown,
                    100 * share, proportional, ofProportional);
        }
        double one = median(samples, MultiBench.Sample::oneConsumerTasksPerS);
        double many = median(samples, MultiBench.Sample::manyConsumersTasksPerS);
        out().printf("throughput: %d consumers at once %.0f tasks/s, one consumer %.0f tasks/s: %.2f x%n",
                computations, many, one, median(samples, s -> s.manyConsumersTasksPerS() / s.oneConsumerTasksPerS()));
        List<Double> allCancels = new ArrayList<>();
        samples.forEach(s -> allCancels.addAll(s.cancelMs()));
        out().printf("cancel: median %.0f ms, max %.0f ms over %d cancellations%n", MultiBench.median(allCancels),
                MultiBench.max(allCancels), allCancels.size());
        out().flush();
        return 0;
    }

    private static double median(List<MultiBench.Sample> samples,
                                 java.util.function.ToDoubleFunction<MultiBench.Sample> f) {
        List<Double> values = new ArrayList<>();
        samples.forEach(s -> values.add(f.applyAsDouble(s)));
        return MultiBench.median(values);
    }
}
