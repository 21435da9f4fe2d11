package org.cx.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.SharedData;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.consumer.Consumer;
import org.cx.examples.sort.MergeSort;
import org.cx.producer.Producer;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;

/**
 * {@code cx bench data}: what moving data costs. Three measurements, each against a baseline in the same run:
 * one large value from one task to the next against a plain TCP copy of the same bytes on loopback; many tasks
 * reading the same shared data, with the bytes it took on the wire; and a merge sort of random longs against
 * {@link Arrays#parallelSort} on the same cores.
 */
public final class DataBench {

    /** The longest a value bench or a merge sort warms up until the JIT is quiet ({@link JitWarmUp}). */
    private static final java.time.Duration WARM_UP_BUDGET = java.time.Duration.ofSeconds(30);

    private DataBench() {
    }

    /** Sends {@code bytes} bytes to a {@link Sink}. */
    public static final class Source extends Task {
        private final int bytes;

        public Source(int bytes) {
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(new byte[bytes]);
        }
    }

    /** Receives one value and sends its length. */
    public static final class Sink extends Task {
        public Sink() {
            super(1);
        }

        @Override
        public void execute(TaskContext context) {
            byte[] value = input(0);
            context.sendResult((long) value.length);
        }
    }

    /** A {@link Source} of {@code bytes} bytes and its {@link Sink}. */
    public static final class Hop extends Task {
        private final int bytes;

        public Hop(int bytes) {
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId sink = context.storeTask(new Sink(), context.continuation());
            context.storeTask(new Source(bytes), Continuation.to(sink, 0));
        }
    }

    /** Stores {@code n} readers of the shared data and sums what they read. */
    public static final class ReadShared extends Task {
        private final int n;

        public ReadShared(int n) {
            this.n = n;
        }

        @Override
        public void execute(TaskContext context) {
            if (n == 1) {
                java.nio.ByteBuffer data = context.sharedData("data");
                long sum = 0;
                for (int i = 0; i < data.limit(); i += 4096) {
                    sum += data.get(i); // touch a byte of every page, as a reader of the whole would
                }
                context.sendResult(sum);
                return;
            }
            TaskId sum = context.storeTask(new Add(), context.continuation());
            context.storeTask(new ReadShared(n / 2), Continuation.to(sum, 0));
            context.storeTask(new ReadShared(n - n / 2), Continuation.to(sum, 1));
        }
    }

    /** Adds two longs. */
    public static final class Add extends Task {
        public Add() {
            super(2);
        }

        @Override
        public void execute(TaskContext context) {
            long a = input(0);
            long b = input(1);
            context.sendResult(a + b);
        }
    }

    /** One value of {@code bytes} bytes from one task to the next, and the TCP copy of as many bytes. */
    public record HopSample(long bytes, double cxMs, double tcpMs) {
        /** CX's throughput as a fraction of TCP's. */
        public double ratio() {
            return tcpMs / cxMs;
        }
    }

    /**
     * Runs {@link Hop} with {@code mib} MiB and with 1 KiB (the fixed costs, subtracted) on one server and a
     * producer of two workers (the value goes from the producer to the server, where it is stored, and the producer
     * runs the sink, which it kept a copy of), then copies as many bytes over a loopback TCP connection into one
     * array.
     */
    public static HopSample valueHop(int mib, TaskBox box, boolean tls, PrintStream log) throws Exception {
        int bytes = mib << 20;
        ServerConfig config = ServerConfig.defaults().withName("data");
        // One producer of two workers: with two, the idle one would run an eager copy of the source (it is "late"
        // while it makes its value), and two copies of the value would share the link.
        try (LocalCluster cluster = LocalCluster.start(tls ? config : config.withTls(null), 1, 1, 2, true, false,
                box);
             Consumer consumer = cluster.consumer()) {
            // The first hops of a large value run in the interpreter and the JIT's first tiers, at up to twice the
            // time of later ones: measured, they made this figure the compiler's.
            JitWarmUp.untilQuiet(() -> warmUp(consumer, new Hop(bytes)), 1, WARM_UP_BUDGET, log::println);
            List<Double> smalls = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                smalls.add(timed(() -> run(consumer, new Hop(1 << 10))));
            }
            double small = median(smalls);
            double large = timed(() -> run(consumer, new Hop(bytes)));
            tcpCopy(bytes); // warm up, as the hops were
            double tcp = tcpCopy(bytes);
            log.printf("  %d MiB value: computation %.0f ms, with 1 KiB %.1f ms; TCP copy %.0f ms%n", mib, large,
                    small, tcp);
            return new HopSample(bytes, Math.max(large - small, 1e-3), tcp);
        }
    }

    /** Shared data read by many tasks: the bytes it took to reach them. */
    public record SharedSample(long dataBytes, int tasks, int producers, double ms, long consumerBytes,
                               long producerFetches) {
        /** Bytes of the data sent to producers: one copy per fetch. */
        public long bytesToProducers() {
            return producerFetches * dataBytes;
        }
    }

    /** {@code tasks} tasks each read the same {@code mib} MiB of shared data, on {@code producers} producers. */
    public static SharedSample shared(int mib, int tasks, int producers, PrintStream log) throws Exception {
        byte[] data = new byte[mib << 20];
        new Random(42).nextBytes(data);
        SharedData shared = SharedData.of("data", data);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("shared"), 1, producers, 1,
                true);
             Consumer consumer = cluster.consumer()) {
            long start = System.nanoTime();
            consumer.<Long>submit(new ReadShared(tasks), shared, r -> { }).result().get(600, TimeUnit.SECONDS);
            double ms = (System.nanoTime() - start) / 1e6;
            long fetches = cluster.producers().stream().mapToLong(Producer::bundlesFetched).sum();
            log.printf("  %d tasks read %d MiB of shared data in %.0f ms; the consumer sent %,d bytes; the %d "
                    + "producers fetched it %d times%n", tasks, mib, ms, consumer.bundleBytesSent(), producers,
                    fetches);
            return new SharedSample(data.length, tasks, producers, ms, consumer.bundleBytesSent(), fetches);
        }
    }

    /**
     * The merge sort against {@link Arrays#parallelSort}, with the peak resident memory of each process of the
     * network during the sort, by name, and of this process during {@code parallelSort}; -1 where the system cannot
     * say.
     */
    public record SortSample(int n, double cxMs, double parallelSortMs, double forkJoinMs, Map<String, Long> cxPeaks,
                             long parallelSortPeakBytes, long[] serverValueBytes) {
        public double ratio() {
            return cxMs / parallelSortMs;
        }

        /** CX's time against the same tasks in a ForkJoinPool of as many threads as it has workers. */
        public double forkJoinRatio() {
            return cxMs / forkJoinMs;
        }

        /** The peaks in MiB, as "name N MiB, ...". */
        public String peaksInMiB() {
            StringBuilder sb = new StringBuilder();
            cxPeaks.forEach((name, bytes) -> sb.append(sb.isEmpty() ? "" : ", ").append(name).append(' ')
                    .append(bytes >> 20).append(" MiB"));
            return sb.toString();
        }

        /**
         * Large values' bytes the server received and sent during the run, as "in N MiB, out M MiB (R MiB passed on
         * as they arrived)", or "".
         */
        public String serverValuesInMiB() {
            return serverValueBytes == null ? "" : String.format("; values through the server: in %d MiB, out %d MiB "
                    + "(%d MiB passed on as they arrived)", serverValueBytes[0] >> 20, serverValueBytes[1] >> 20,
                    serverValueBytes[2] >> 20);
        }
    }

    /**
     * Where the merge sort runs: {@code processesMain} null, the whole network in this process; otherwise the main
     * class of the {@code cx} command, whose {@code cx server} and {@code cx producer} run as processes of their own
     * with {@code processHeapMiB} of heap each. {@code timeline}, in this process only: where to write the sort's;
     * {@code plain}, in this process only: plain connections instead of TLS.
     */
    public record SortSettings(int n, int leafSize, int producers, int workers, java.nio.file.Path timeline,
                               String processesMain, int processHeapMiB, boolean plain) {
        /** Workers in all: the threads of the ForkJoinPool the same tasks run in. */
        public int threads() {
            return producers * workers;
        }
    }

    /** Timed runs of {@link Arrays#parallelSort} per sample; the sample is their median. */
    static final int PARALLEL_SORT_RUNS = 5;

    /**
     * Sorts {@code n} random longs with {@link MergeSort} ({@code leafSize} per leaf) on one server and
     * {@code producers} producers of {@code workers} workers, and with {@link Arrays#parallelSort} (the median of
     * {@value #PARALLEL_SORT_RUNS} runs); checks that both agree.
     */
    public static SortSample sort(SortSettings s, PrintStream log) throws Exception {
        int n = s.n();
        long[] values = new Random(42).longs(n).toArray();
        long[] expected = values.clone();
        Arrays.parallelSort(values.clone()); // warm up
        System.gc();
        SortNetwork.resetPeak("self");
        List<Double> parallelRuns = new ArrayList<>();
        for (int i = 0; i < PARALLEL_SORT_RUNS; i++) { // its first runs may still be compiling the vectorized sort
            System.arraycopy(values, 0, expected, 0, n);
            long t0 = System.nanoTime();
            Arrays.parallelSort(expected);
            parallelRuns.add((System.nanoTime() - t0) / 1e6);
        }
        double parallelMs = median(parallelRuns);
        long parallelPeak = SortNetwork.peak("self");
        double forkJoinMs;
        try (java.util.concurrent.ForkJoinPool pool = new java.util.concurrent.ForkJoinPool(s.threads())) {
            MergeSort.forkJoin(values, s.leafSize(), pool); // warm up
            long t = System.nanoTime();
            long[] sortedHere = MergeSort.forkJoin(values, s.leafSize(), pool);
            forkJoinMs = (System.nanoTime() - t) / 1e6;
            if (!Arrays.equals(expected, sortedHere)) {
                throw new IllegalStateException("the merge sort in a ForkJoinPool differs from Arrays.parallelSort");
            }
        }
        SharedData input = MergeSort.input(values);
        java.nio.file.Path logs = null;
        if (s.processesMain() != null) {
            logs = java.nio.file.Files.createTempDirectory("cx-sort");
            log.printf("  the sort's server and producers log to %s%n", logs);
        }
        try (SortNetwork network = logs == null
                ? SortNetwork.inThisProcess(s.producers(), s.workers(), s.timeline() != null, s.plain())
                : SortNetwork.ofProcesses(s.processesMain(), s.producers(), s.workers(), s.processHeapMiB(), logs)) {
            Consumer consumer = network.consumer();
            // The data reaches the producers with the first sort; the sorts after it run the network's paths for
            // large values through the JIT's tiers, measured at up to 1.3 times the time of later ones.
            JitWarmUp.untilQuiet(() -> warmUp(() -> consumer.submit(new MergeSort(n, s.leafSize()), input, r -> { })
                    .result().get(600, TimeUnit.SECONDS)), 3, WARM_UP_BUDGET, log::println);
            System.gc();
            network.resetPeaks();
            long[] valuesBefore = network.serverValueBytes();
            long t1 = System.nanoTime();
            long[] sorted = consumer.<long[]>submit(new MergeSort(n, s.leafSize()), input, r -> { })
                    .result().get(600, TimeUnit.SECONDS);
            long t2 = System.nanoTime();
            double cxMs = (t2 - t1) / 1e6;
            Map<String, Long> peaks = network.peaks();
            long[] moved = network.serverValueBytes();
            if (moved != null) {
                for (int i = 0; i < moved.length; i++) {
                    moved[i] -= valuesBefore[i];
                }
            }
            if (s.timeline() != null && network instanceof SortNetwork.InProcess in) {
                Timeline.write(s.timeline(), in.cluster(), t1, t2);
                log.printf("timeline of the merge sort: %s (open it in https://ui.perfetto.dev)%n", s.timeline());
            }
            if (!Arrays.equals(expected, sorted)) {
                throw new IllegalStateException("the merge sort's answer differs from Arrays.parallelSort's");
            }
            SortSample sample = new SortSample(n, cxMs, parallelMs, forkJoinMs, peaks, parallelPeak, moved);
            log.printf("  %,d longs: merge sort %.0f ms (peak resident: %s%s), Arrays.parallelSort %.0f ms (peak "
                    + "resident %d MiB), the same tasks in a ForkJoinPool of %d %.0f ms%n", n, cxMs,
                    sample.peaksInMiB(), sample.serverValuesInMiB(), parallelMs, parallelPeak >> 20, s.threads(),
                    forkJoinMs);
            return sample;
        }
    }

    private static void run(Consumer consumer, Task root) throws Exception {
        consumer.submit(root).result().get(600, TimeUnit.SECONDS);
    }

    private static void warmUp(Consumer consumer, Task root) throws InterruptedException {
        warmUp(() -> run(consumer, root));
    }

    private static void warmUp(Step step) throws InterruptedException {
        try {
            step.run();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("a warm-up computation failed: " + e.getMessage(), e);
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static double timed(Step step) throws Exception {
        long start = System.nanoTime();
        step.run();
        return (System.nanoTime() - start) / 1e6;
    }

    /** Milliseconds to copy {@code bytes} bytes over a fresh loopback TCP connection into one array. */
    static double tcpCopy(int bytes) throws IOException, InterruptedException, java.util.concurrent.ExecutionException {
        byte[] source = new byte[bytes];
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    byte[] target = new byte[bytes];
                    int n = in.readNBytes(target, 0, bytes);
                    return System.nanoTime() + (n == bytes ? 0 : Long.MIN_VALUE);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                 OutputStream out = client.getOutputStream()) {
                long start = System.nanoTime();
                out.write(source);
                out.flush();
                long end = received.get();
                if (end < 0) {
                    throw new IOException("the TCP copy was cut short");
                }
                return (end - start) / 1e6;
            }
        }
    }

    /** The median of {@code values}. */
    public static double median(List<Double> values) {
        return RecoveryBench.median(values);
    }
}
