package org.cx.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.consumer.Consumer;
import org.cx.examples.ep.Ep;
import org.cx.producer.CpuCapMode;
import org.cx.producer.OwnerSettings;
import org.cx.producer.ProcessCpu;
import org.cx.producer.Producer;
import org.cx.producer.RunWhen;
import org.cx.producer.TaskBox;
import org.cx.producer.Thermostat;
import org.cx.server.ServerConfig;

/**
 * What a producer's owner gets: how closely task code keeps to the thermostat's CPU cap (CPU of the worker processes
 * from {@code /proc}), what each way of keeping a cap costs in throughput, how soon task code is frozen when the
 * owner's programs get busy and thawed when they stop, and what an idle producer costs. One server and the producers
 * in this process; the worker processes and the idle producer are processes of their own.
 */
public final class ThermostatBench {
    /**
     * The CPU-bound load of the suspension runs: NAS EP of 2^33 pairs in leaves of 2^22 pairs (about 70 ms each
     * here), minutes of CPU, so that it outlasts them; it is cancelled at the end.
     */
    private static Ep load() {
        return new Ep(33, 64);
    }

    /** The fixed job of the cap runs: NAS EP of 2^30 pairs (about 20 CPU seconds here) in 256 leaves. */
    private static final int JOB_M = 30;
    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

    private ThermostatBench() {
    }

    /** One cap under one way of keeping it: CPU of task code as a share of the machine, and the job's time. */
    public record CapPoint(CpuCapMode mode, double cap, double cpu, double seconds) {
    }

    /** Freezing on the owner's return and thawing on their leaving, in milliseconds, per repetition. */
    public record Latency(List<Double> suspendMs, List<Double> resumeMs) {
    }

    /**
     * For each mode and cap: the cap is written to the thermostat file and given {@code settle} to take effect; then
     * a fixed job (NAS EP of 2^30 pairs) runs, and the worker processes' CPU over its time is taken. The first cap
     * of each mode warms the worker processes up and is not reported.
     */
    public static List<CapPoint> caps(List<CpuCapMode> modes, double[] caps, int workers, Duration settle,
                                      Path scratch, PrintStream progress)
            throws IOException, InterruptedException, java.util.concurrent.ExecutionException {
        List<CapPoint> points = new ArrayList<>();
        for (CpuCapMode mode : modes) {
            Path file = scratch.resolve("thermostat-" + mode + ".json");
            Thermostat.OPEN.write(file);
            OwnerSettings owner = new OwnerSettings(RunWhen.ALWAYS, file, Duration.ofMinutes(5), 0.25,
                    Duration.ofHours(1), mode, null);
            try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("thermostat"), 0, workers,
                    true); Consumer consumer = cluster.consumer()) {
                Producer p = cluster.addProducer(0, workers, c -> c.withBox(TaskBox.defaults()
                        .withIsolation(TaskBox.Isolation.PROCESS)).withOwner(owner));
                for (int i = 0; i < caps.length; i++) {
                    double cap = caps[i];
                    new Thermostat(cap, Thermostat.Memory.UNLIMITED, List.of()).write(file);
                    Thread.sleep(settle.toMillis());
                    long cpu0 = cpuNanos(p);
                    long t0 = System.nanoTime();
                    Ep.Result r = consumer.<Ep.Result>submit(new Ep(JOB_M, 64)).result().get();
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    if (!Ep.verify(JOB_M, r)) {
                        throw new IllegalStateException("EP's answer does not match the NPB reference");
                    }
                    CapPoint point = new CapPoint(mode, cap, (cpuNanos(p) - cpu0) / 1e9 / seconds / PROCESSORS,
                            seconds);
                    if (i > 0) {
                        points.add(point);
                    }
                    progress.printf("  %-10s cap %4s: task code used %5.1f %% of the machine; the job took %5.1f s%s%n",
                            mode.name().toLowerCase().replace('_', '-'), Thermostat.percent(cap), point.cpu() * 100,
                            seconds, i == 0 ? " (warm-up)" : "");
                    progress.flush();
                }
            }
        }
        return points;
    }

    /**
     * {@code repeats} times: the owner's programs (one spinning shell per processor) start, and the time until every
     * worker process is stopped is taken; they end, and the time until none is.
     */
    public static Latency suspension(int repeats, int workers, PrintStream progress)
            throws IOException, InterruptedException {
        List<Double> suspend = new ArrayList<>();
        List<Double> resume = new ArrayList<>();
        OwnerSettings owner = new OwnerSettings(RunWhen.IDLE, null, Duration.ofMinutes(5), 0.25,
                Duration.ofHours(1), CpuCapMode.WORKERS, null);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("owner"), 0, workers, true);
             Consumer consumer = cluster.consumer()) {
            Producer p = cluster.addProducer(0, workers, c -> c.withBox(TaskBox.defaults()
                    .withIsolation(TaskBox.Isolation.PROCESS)).withOwner(owner));
            Computation<Ep.Result> load = consumer.submit(load());
            await(() -> p.tasksRun() > 10, "tasks to run");
            for (int r = 0; r < repeats; r++) {
                List<Process> owners = new ArrayList<>();
                long t0 = System.nanoTime();
                for (int i = 0; i < PROCESSORS; i++) {
                    owners.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
                }
                await(() -> allStopped(p, true), "the workers to be frozen");
                suspend.add((System.nanoTime() - t0) / 1e6);
                long t1 = System.nanoTime();
                owners.forEach(Process::destroyForcibly);
                await(() -> allStopped(p, false), "the workers to be thawed");
                resume.add((System.nanoTime() - t1) / 1e6);
                progress.printf("  owner back: frozen after %4.0f ms; owner gone: thawed after %4.0f ms%n",
                        suspend.get(r), resume.get(r));
                progress.flush();
                Thread.sleep(1000); // the machine's CPU reading settles between repetitions
            }
            load.cancel();
        }
        return new Latency(suspend, resume);
    }

    /**
     * A producer process ({@code cx producer} with {@code options}) attached to an idle server: its own CPU and its
     * worker processes', over {@code window} after {@code settle}, as a share of one processor.
     */
    public static double idleCpu(List<String> options, Duration settle, Duration window, Path scratch)
            throws IOException, InterruptedException {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("idle").withTls(null),
                0, 1, true)) {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-cp", System.getProperty("java.class.path"), "org.cx.cli.Cx", "producer", "--server",
                    "127.0.0.1:" + cluster.server().port(), "--insecure", "--no-jmx", "--workers", "2",
                    "--state-dir", scratch.resolve("idle-state").toString(),
                    "--thermostat", scratch.resolve("idle-thermostat.json").toString()));
            command.addAll(options);
            Process producer = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(scratch.resolve("idle-producer.log").toFile()).start();
            try {
                await(() -> cluster.server().status().producers() == 1, "the producer to attach");
                Thread.sleep(settle.toMillis());
                long cpu0 = treeCpuNanos(producer.toHandle());
                long t0 = System.nanoTime();
                Thread.sleep(window.toMillis());
                return (treeCpuNanos(producer.toHandle()) - cpu0) / (double) (System.nanoTime() - t0);
            } finally {
                producer.descendants().forEach(ProcessHandle::destroyForcibly);
                producer.destroyForcibly();
                producer.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static long cpuNanos(Producer p) {
        long total = 0;
        for (long pid : p.workerPids()) {
            total += Math.max(0, ProcessCpu.nanos(pid));
        }
        return total;
    }

    private static long treeCpuNanos(ProcessHandle h) {
        long total = Math.max(0, ProcessCpu.nanos(h.pid()));
        for (ProcessHandle d : h.descendants().toList()) {
            total += Math.max(0, ProcessCpu.nanos(d.pid()));
        }
        return total;
    }

    private static boolean allStopped(Producer p, boolean stopped) {
        long[] pids = p.workerPids();
        for (long pid : pids) {
            if (ProcessCpu.stopped(pid) != stopped) {
                return false;
            }
        }
        return pids.length > 0;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
