package org.cx.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.cx.harness.FibBench;
import org.cx.producer.TaskBox;
import org.cx.harness.Json;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx bench fib}: the Fibonacci DAG, its efficiency beside the ceiling, and its throughput. */
@Command(name = "fib", mixinStandardHelpOptions = true,
        description = {"Runs the Fibonacci DAG and reports efficiency and throughput.",
            "P producers, each with its own TCP connection; efficiency (T1/(P*W))/Tp is shown beside the",
            "zero-overhead greedy ceiling. Each run also says how the workers' idle time splits (start-up,",
            "steady, wind-down) and how much CPU the servers and the producers' I/O threads used."})
final class BenchFibCommand extends Printing implements Callable<Integer> {

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
                    + "compiling (for 5%% or more of any of the last 3 runs, or of the last 2 s of runs), for "
                    + "at most S seconds, so that the compiled code is measured, not the compiler: 7 servers "
                    + "sharing 2 cores need about 30 runs of F(13), F(5) thousands. 0: only the K runs. "
                    + "Default: ${DEFAULT-VALUE}.")
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

    @Option(names = "--insecure",
            description = "Plain connections between the bench's servers, producers and consumer, instead of TLS "
                    + "with this user's local credentials (to measure what security costs).")
    boolean insecure;

    @Option(names = "--task-isolation", defaultValue = "in-process", paramLabel = "MODE",
            converter = ProducerCommand.IsolationConverter.class,
            description = "Where the bench's producers run task code: in-process (the exchange alone), process or "
                    + "sandbox (worker processes, as cx producer does: to measure what the box costs). "
                    + "Default: ${DEFAULT-VALUE}.")
    TaskBox.Isolation isolation;

    @Option(names = "--quorum", defaultValue = "1", paramLabel = "Q",
            description = "Validate every task by redundant execution: its effects apply once Q producers of "
                    + "different owners returned equal ones (each producer gets a local credential of its own). "
                    + "Efficiency then counts each task once: Q times the work shows as 1/Q. Default: "
                    + "${DEFAULT-VALUE} (no validation).")
    int quorum;

    @Override
    public Integer call() throws Exception {
        FibBench.Settings s = new FibBench.Settings(n, servers, producers, workers, load.toLoad(), !noPrefetch, local,
                warmup, repeat, insecure, isolation, quorum);
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
