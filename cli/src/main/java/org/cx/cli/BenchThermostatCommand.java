package org.cx.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.cx.harness.RecoveryBench;
import org.cx.harness.ThermostatBench;
import org.cx.producer.CpuCapMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench thermostat}: how well a producer keeps to its owner's caps, and what it costs when idle. */
@Command(name = "thermostat", mixinStandardHelpOptions = true,
        description = {"Measures what a producer's owner gets: the CPU task code uses under caps of 25, 50 and 75 %% "
                + "(from /proc, each way of keeping a cap), the throughput each way keeps, how soon task code is "
                + "frozen when the owner's programs get busy and thawed when they stop, and the CPU of an idle "
                + "producer.", "One server in this process; producers with worker processes. Takes about 12 minutes."})
final class BenchThermostatCommand extends Printing implements Callable<Integer> {
    @Option(names = "--only", split = ",", paramLabel = "PART",
            description = "Parts to run: caps, suspension, idle. Default: all.")
    List<String> only = List.of("caps", "suspension", "idle");

    @Option(names = "--workers", defaultValue = "2", description = "Workers of the producer. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--repeats", defaultValue = "5", description = "Suspensions measured. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Override
    public Integer call() throws Exception {
        if (workers < 1 || repeats < 1) {
            throw new IllegalArgumentException("--workers and --repeats must be positive");
        }
        Path scratch = Files.createTempDirectory("cx-bench-thermostat");
        int processors = Runtime.getRuntime().availableProcessors();
        out().printf(Locale.ROOT, "cx bench thermostat: %d processors, %d workers%n", processors, workers);
        if (only.contains("caps")) {
            out().println("CPU caps: a fixed job (NAS EP, 2^30 pairs) under each cap; task code's CPU from /proc over "
                    + "the job, as a share of the machine:");
            List<ThermostatBench.CapPoint> points = ThermostatBench.caps(List.of(CpuCapMode.WORKERS,
                    CpuCapMode.DUTY_CYCLE), new double[] {1.0, 1.0, 0.75, 0.5, 0.25}, workers, Duration.ofSeconds(1),
                    scratch, new java.io.PrintStream(System.out, true));
            for (CpuCapMode mode : CpuCapMode.values()) {
                ThermostatBench.CapPoint full = points.stream().filter(p -> p.mode() == mode && p.cap() == 1.0)
                        .findFirst().orElseThrow();
                for (ThermostatBench.CapPoint p : points) {
                    if (p.mode() == mode && p.cap() < 1) {
                        // Ideal: the job's CPU at the cap's rate; efficiency is the ideal time over the time taken.
                        double ideal = full.seconds() * full.cpu() / Math.min(full.cpu(), p.cap());
                        out().printf(Locale.ROOT, "%-10s cap %3.0f %%: used %5.1f %% (%+5.1f points); job %5.1f s, "
                                        + "efficiency %.2f%n", mode.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                                p.cap() * 100, p.cpu() * 100, (p.cpu() - p.cap()) * 100, p.seconds(),
                                ideal / p.seconds());
                    }
                }
            }
        }
        if (only.contains("suspension")) {
            out().println("The owner's programs get busy, then stop (" + repeats + " times):");
            ThermostatBench.Latency l = ThermostatBench.suspension(repeats, workers,
                    new java.io.PrintStream(System.out, true));
            out().printf(Locale.ROOT, "frozen after %.0f ms, thawed after %.0f ms (medians; max %.0f and %.0f)%n",
                    RecoveryBench.median(l.suspendMs()), RecoveryBench.median(l.resumeMs()),
                    l.suspendMs().stream().mapToDouble(d -> d).max().orElse(0),
                    l.resumeMs().stream().mapToDouble(d -> d).max().orElse(0));
        }
        if (only.contains("idle")) {
            out().println("An idle producer process with 2 worker processes (CPU over 30 s from its 90th second, "
                    + "once its JIT is done, as a share of one processor):");
            for (List<String> options : List.of(List.<String>of(), List.of("--run-when", "idle"))) {
                List<Double> runs = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    runs.add(ThermostatBench.idleCpu(options, Duration.ofSeconds(90), Duration.ofSeconds(30),
                            scratch));
                }
                out().printf(Locale.ROOT, "  %-18s %.2f %% of a processor (mean of %s)%n", options.isEmpty()
                        ? "--run-when always" : String.join(" ", options), (runs.get(0) + runs.get(1)) / 2 * 100,
                        runs.stream().map(d -> String.format(Locale.ROOT, "%.2f", d * 100)).toList());
            }
        }
        out().flush();
        return 0;
    }
}
