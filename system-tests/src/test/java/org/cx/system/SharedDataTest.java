package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.Continuation;
import org.cx.api.SharedData;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.consumer.Consumer;
import org.cx.harness.LocalCluster;
import org.cx.producer.BundleDiskCache;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Read-only data attached to a computation: every task reads it, and it travels once, whatever the computations. */
class SharedDataTest {

    /** Stores {@code n} readers of entry {@code name} and a sum of what they read. */
    static final class ReadAll extends Task {
        private final int n;
        private final String name;

        ReadAll(int n, String name) {
            this.n = n;
            this.name = name;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId sum = context.storeTask(new TestTasks.Sum(n), context.continuation());
            for (int i = 0; i < n; i++) {
                context.storeTask(new Reader(name), Continuation.to(sum, i));
            }
        }
    }

    /** Sends the sum of the bytes of a shared data entry. */
    static final class Reader extends Task {
        private final String name;

        Reader(String name) {
            this.name = name;
        }

        @Override
        public void execute(TaskContext context) {
            java.nio.ByteBuffer data = context.sharedData(name);
            long sum = 0;
            while (data.hasRemaining()) {
                sum += data.get();
            }
            context.sendResult(sum);
        }
    }

    private static long checksum(byte[] bytes) {
        long sum = 0;
        for (byte b : bytes) {
            sum += b;
        }
        return sum;
    }

    @Test
    void everyTaskReadsTheDataAndItTravelsOnce() throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] table = new byte[3 << 20]; // over a bundle chunk: it travels in several
        new Random(seed).nextBytes(table);
        SharedData data = SharedData.builder().add("db/table.bin", table).add("notes.txt", new byte[] {1, 2}).build();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("shared"), 2, 4, 1, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> first = consumer.submit(new ReadAll(40, "db/table.bin"), data, r -> { });
            assertEquals(40 * checksum(table), first.result().get(60, TimeUnit.SECONDS));
            assertEquals(1, consumer.bundleUploads(), "the data went up once");
            long fetched = cluster.producers().stream().mapToLong(Producer::bundlesFetched).sum();
            assertTrue(fetched >= 1 && fetched <= 4, "each producer fetched it at most once: " + fetched);

            Computation<Long> second = consumer.submit(new ReadAll(40, "notes.txt"), SharedData.builder()
                    .add("db/table.bin", table).add("notes.txt", new byte[] {1, 2}).build(), r -> { });
            assertEquals(40 * 3L, second.result().get(60, TimeUnit.SECONDS));
            assertEquals(1, consumer.bundleUploads(), "a second computation with the same data sends none of it");
            for (Producer p : cluster.producers()) {
                assertTrue(p.bundlesFetched() <= 1, "a producer fetched it " + p.bundlesFetched() + " times");
            }

            Computation<Object> wrong = consumer.submit(new Reader("missing.bin"), data, r -> { });
            ExecutionException e = assertThrows(ExecutionException.class, () -> wrong.result().get(60,
                    TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("no shared data named 'missing.bin' in this computation; "
                    + "it has [db/table.bin, notes.txt]"), e.getCause().getMessage());
        }
    }

    @Test
    void aProducerKeepsBundlesOnDiskAndARestartedOneFetchesNone(@TempDir Path cacheDir) throws Exception {
        byte[] table = new byte[2 << 20];
        new Random(11).nextBytes(table);
        SharedData data = SharedData.of("t", table);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("disk"), 1, 0, 1, true);
             Consumer consumer = cluster.consumer()) {
            ProducerConfig config = ProducerConfig.of(cluster.server().address(), 2).withName("cached")
                    .withBox(TaskBox.inProcess()).withCache(new BundleDiskCache.Settings(cacheDir, 64 << 20));
            try (Producer first = Producer.start(config)) {
                assertEquals(5 * checksum(table), consumer.<Long>submit(new ReadAll(5, "t"), data, r -> { })
                        .result().get(60, TimeUnit.SECONDS));
                assertEquals(1, first.bundlesFetched());
            }
            Await.until("the bundle on disk", Clusters.TIMEOUT, () -> {
                try (var files = Files.list(cacheDir)) {
                    return files.anyMatch(f -> f.toString().endsWith(".jar"));
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            try (Producer restarted = Producer.start(config.withName("restarted"))) {
                assertEquals(7 * checksum(table), consumer.<Long>submit(new ReadAll(7, "t"), data, r -> { })
                        .result().get(60, TimeUnit.SECONDS));
                assertEquals(0, restarted.bundlesFetched(), "nothing fetched after the restart");
                assertEquals(1, restarted.bundlesFromDisk());
            }
        }
    }

    @Test
    void tasksInWorkerProcessesReadItToo() throws Exception {
        byte[] table = new byte[1 << 20];
        new Random(7).nextBytes(table);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("shared-box"), 1, 1, 2, true,
                false, TaskBox.defaults().withIsolation(TaskBox.Isolation.PROCESS));
             Consumer consumer = cluster.consumer()) {
            Computation<Long> c = consumer.submit(new ReadAll(10, "t"), SharedData.of("t", table), r -> { });
            assertEquals(10 * checksum(table), c.result().get(120, TimeUnit.SECONDS));
        }
    }
}
