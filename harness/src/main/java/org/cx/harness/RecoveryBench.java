package org.cx.harness;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.consumer.NetworkProbe;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.WireClient;

/**
 * {@code cx bench recovery}: S server processes (started like {@code cx server}), producers in this process spread
 * over them, computations running all the time; then servers are killed with SIGKILL one after another. For each
 * failure it measures the time until every producer of the killed server has received tasks again, and the time
 * until the network tolerates another failure (every mirror group holds its copy again).
 */
public final class RecoveryBench {

    /** One failure: milliseconds until the victim's producers were served again, and until tolerant again. */
    public record Sample(int servers, String victim, int position, int producers, double servedMs, double tolerantMs) {
    }

    private RecoveryBench() {
    }

    /**
     * Runs the bench. {@code serverMain} is the main class of a command whose {@code server} subcommand takes
     * {@code cx server}'s options ({@code org.cx.harness.Cx}); it runs on this process's class path.
     */
    public static List<Sample> run(String serverMain, int servers, int producersPerServer, int kills, long seed,
                                   PrintStream log) throws Exception {
        if (kills >= servers) {
            throw new IllegalArgumentException("--kills must be less than --servers (one server must remain); got "
                    + kills + " kills of " + servers + " servers");
        }
        Path logs = Files.createTempDirectory("cx-recovery");
        List<Process> processes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        EventLoopGroup loops = EventLoops.create("bench-producers", 2);
        List<Producer> producers = new ArrayList<>();
        Random random = new Random(seed);
        try {
            for (int i = 0; i < servers; i++) {
                String address = "127.0.0.1:" + freePort();
                addresses.add(address);
                processes.add(launch(serverMain, i, address, i == 0 ? null : addresses.get(0), logs));
                if (i == 0) {
                    awaitServers(addresses.get(0), 1, false);
                }
            }
            awaitServers(addresses.get(0), servers, true);
            log.printf("%d servers up and mirrored (server logs in %s)%n", servers, logs);
            for (String address : addresses) {
                for (int k = 0; k < producersPerServer; k++) {
                    producers.add(Producer.start(ProducerConfig.of(WireClient.parseAddress(address), 1)
                            .withName("p-" + producers.size()).withBox(TaskBox.inProcess()), loops));
                }
            }
            List<Sample> samples = new ArrayList<>();
            try (Consumer consumer = Consumer.connect(addresses.get(0))) {
                Thread load = new Thread(() -> keepBusy(consumer), "bench-load");
                load.setDaemon(true);
                load.start();
                List<Integer> alive = new ArrayList<>();
                for (int i = 0; i < servers; i++) {
                    alive.add(i);
                }
                for (int k = 0; k < kills; k++) {
                    Thread.sleep(500); // let work spread to every server again
                    int victim = alive.remove(random.nextInt(alive.size()));
                    String address = addresses.get(victim);
                    int position = positionOf(addresses.get(alive.get(0)), address);
                    List<Producer> orphans = producers.stream()
                            .filter(p -> p.serverAddress().endsWith(address.substring(address.indexOf(':')))).toList();
                    long t0 = System.nanoTime();
                    processes.get(victim).destroyForcibly();
                    double served = -1;
                    double tolerant = -1;
                    long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
                    while ((served < 0 || tolerant < 0) && System.nanoTime() < deadline) {
                        if (served < 0 && orphans.stream().allMatch(p -> p.lastAssignNanos() > t0
                                && !p.serverAddress().endsWith(address.substring(address.indexOf(':'))))) {
                            served = (orphans.stream().mapToLong(Producer::lastAssignNanos).max().orElse(t0) - t0)
                                    / 1e6;
                        }
                        if (tolerant < 0 && tolerant(addresses.get(alive.get(0)), alive.size())) {
                            tolerant = (System.nanoTime() - t0) / 1e6;
                        }
                        Thread.sleep(2);
                    }
                    Sample s = new Sample(alive.size() + 1, "s" + victim, position, orphans.size(), served, tolerant);
                    log.printf("kill %d: server s%d at position %d with %d producers: producers served again after "
                            + "%.0f ms, tolerant again after %.0f ms%n", k + 1, victim, position, orphans.size(),
                            served, tolerant);
                    samples.add(s);
                }
                load.interrupt();
            }
            return samples;
        } finally {
            for (Producer p : producers) {
                p.close();
            }
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
    }

    /** Submits one long computation after another so that there is always work to be served. */
    private static void keepBusy(Consumer consumer) {
        Load load = new Load(Load.Kind.SLEEP, 1_000_000L, 20_000_000L, 1_000_000L);
        while (!Thread.currentThread().isInterrupted()) {
            try {
                consumer.submit(new Fib(22, load)).result().get(10, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | java.util.concurrent.ExecutionException
                     | java.util.concurrent.TimeoutException e) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                // a computation interrupted by a failure of its consumer's server: start another
            }
        }
    }

    private static Process launch(String serverMain, int i, String address, String join, Path logs) throws IOException {
        List<String> command = javaCommand(256, serverMain);
        command.addAll(List.of("server",
                "--port", address.substring(address.indexOf(':') + 1), "--name", "s" + i, "--no-jmx"));
        if (join != null) {
            command.addAll(List.of("--join", join));
        }
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logs.resolve("s" + i + ".log").toFile()).start();
    }

    /** This JDK's {@code java} with a heap of {@code heapMiB} running {@code main} on this process's class path. */
    static List<String> javaCommand(int heapMiB, String main) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heapMiB + "m"));
        if (Runtime.version().feature() >= 24) {
            command.add("--sun-misc-unsafe-memory-access=allow"); // Kryo
            command.add("--enable-native-access=ALL-UNNAMED"); // Netty's epoll transport
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
        return command;
    }

    static void awaitServers(String any, int count, boolean mirrored) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                Message.NetworkStatus s = NetworkProbe.status(any);
                if (s.servers().length == count && (!mirrored || s.tolerant())) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the network of " + count + " servers did not form within 60 s");
    }

    private static boolean tolerant(String any, int count) {
        try {
            Message.NetworkStatus s = NetworkProbe.status(any);
            return s.servers().length == count && s.tolerant();
        } catch (IOException e) {
            return false;
        }
    }

    private static int positionOf(String any, String address) throws IOException {
        for (Message.ServerStatus s : NetworkProbe.status(any).servers()) {
            if (s.address().equals(address)) {
                return s.position();
            }
        }
        return -1;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.isEmpty() ? Double.NaN : sorted.get((sorted.size() - 1) / 2);
    }
}
