package org.cx.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.server.ServerConfig;

/**
 * Where {@link DataBench#sort} runs its merge sort: one server and its one-worker producers, with a consumer in this
 * process; and the peak resident memory of each process of it (Linux: {@code VmHWM}, reset through
 * {@code clear_refs}).
 */
sealed interface SortNetwork extends AutoCloseable {

    Consumer consumer();

    /** Starts a new peak of resident memory in every process of the network. */
    void resetPeaks();

    /** Each process's peak resident memory since the last reset, by name, in bytes (-1 where unknown). */
    Map<String, Long> peaks();

    /**
     * Bytes of large values the server has received, sent, and of those sent passed on as they arrived, so far
     * (chunks of values by reference), or null where it runs as a process of its own.
     */
    default long[] serverValueBytes() {
        return null;
    }

    @Override
    void close();

    /**
     * The whole network in this process ({@link LocalCluster}): one value budget and one heap for all; with
     * {@code plain}, over plain connections instead of TLS.
     */
    static SortNetwork inThisProcess(int producers, int workers, boolean timelines, boolean plain)
            throws IOException, InterruptedException {
        ServerConfig config = plain ? ServerConfig.defaults(null) : ServerConfig.defaults();
        LocalCluster cluster = LocalCluster.start(config.withName("sort"), 1, producers, workers,
                true, timelines);
        try {
            return new InProcess(cluster, cluster.consumer());
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * A {@code cx server} and {@code producers} {@code cx producer} processes of {@code heapMiB} of heap each, tasks
     * run in the producers' JVMs; {@code cxMain} is the main class of the {@code cx} command, run on this process's
     * class path; their output goes to files in {@code logs}.
     */
    static SortNetwork ofProcesses(String cxMain, int producers, int workers, int heapMiB, Path logs) throws Exception {
        List<Process> started = new ArrayList<>();
        Map<String, Process> named = new LinkedHashMap<>();
        try {
            String address = "127.0.0.1:" + RecoveryBench.freePort();
            List<String> server = RecoveryBench.javaCommand(heapMiB, cxMain);
            server.addAll(List.of("server", "--port", address.substring(address.indexOf(':') + 1), "--name", "sort",
                    "--no-jmx"));
            named.put("server", start(server, logs.resolve("server.log"), started));
            RecoveryBench.awaitServers(address, 1, false);
            for (int i = 0; i < producers; i++) {
                List<String> producer = RecoveryBench.javaCommand(heapMiB, cxMain);
                producer.addAll(List.of("producer", "--server", address, "--workers", String.valueOf(workers),
                        "--name", "sort-" + i, "--no-jmx", "--task-isolation", "in-process"));
                Path log = logs.resolve("producer-" + i + ".log");
                named.put("producer-" + i, start(producer, log, started));
                awaitLine(log, "attached to");
            }
            return new Processes(named, Consumer.connect(address));
        } catch (Exception e) {
            started.forEach(Process::destroyForcibly);
            throw e;
        }
    }

    private static Process start(List<String> command, Path log, List<Process> started) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        started.add(p);
        return p;
    }

    private static void awaitLine(Path log, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("no line with '" + text + "' in " + log + " within 60 s");
    }

    /** Writes "5" to {@code /proc/PID/clear_refs}: the peak resident memory starts again from now. */
    static void resetPeak(String pid) {
        try {
            Files.writeString(Path.of("/proc", pid, "clear_refs"), "5");
        } catch (IOException | UnsupportedOperationException e) {
            // not Linux, or not allowed: the peak is since the process started
        }
    }

    /** {@code VmHWM} of process {@code pid}, or -1. */
    static long peak(String pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    record InProcess(LocalCluster cluster, Consumer consumer) implements SortNetwork {
        @Override
        public void resetPeaks() {
            resetPeak("self");
        }

        @Override
        public Map<String, Long> peaks() {
            return Map.of("this process (server, producers, consumer)", peak("self"));
        }

        @Override
        public long[] serverValueBytes() {
            org.cx.wire.ValueStore store = cluster.server().values();
            return new long[] {store.bytesReceived(), store.bytesSent(), store.bytesRelayed()};
        }

        @Override
        public void close() {
            consumer.close();
            cluster.close();
        }
    }

    record Processes(Map<String, Process> processes, Consumer consumer) implements SortNetwork {
        @Override
        public void resetPeaks() {
            processes.values().forEach(p -> resetPeak(Long.toString(p.pid())));
            resetPeak("self");
        }

        @Override
        public Map<String, Long> peaks() {
            Map<String, Long> peaks = new LinkedHashMap<>();
            processes.forEach((name, p) -> peaks.put(name, peak(Long.toString(p.pid()))));
            peaks.put("consumer (this process)", peak("self"));
            return peaks;
        }

        @Override
        public void close() {
            consumer.close();
            for (Process p : processes.values()) {
                p.destroyForcibly();
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
