package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.examples.sort.MergeSort;
import org.cx.harness.DataBench;
import org.cx.harness.LocalCluster;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.wire.WireClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Values larger than any message and than the heaps of the processes they pass through. */
class LargeValueTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * A merge sort whose leaves and merges send values of 1 MiB and more, all by reference: each of the six that a
     * merge reads is let go by the server once that merge is done, and by the producers that held it when the server
     * tells them, while the computation still runs or just after (and the worker processes, with the next task they
     * get); the answer is right. With one server the result is passed on to the consumer as it arrives.
     */
    @ParameterizedTest(name = "{0} servers, tasks {1}")
    @CsvSource({"1, IN_PROCESS", "3, IN_PROCESS", "1, PROCESS"})
    void aLargeValueGoesEverywhereOnceTheTaskThatReadItIsDone(int servers, TaskBox.Isolation isolation)
            throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        int n = 1 << 19;
        int leaf = 1 << 17; // 1 MiB of longs and a header: over the inline limit
        long[] values = new java.util.Random(seed).longs(n).toArray();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("release"), servers, 2 * servers,
                1, true, false, TaskBox.defaults().withIsolation(isolation));
             Consumer consumer = cluster.consumer()) {
            long[] sorted = consumer.<long[]>submit(new MergeSort(n, leaf), MergeSort.input(values), r -> { })
                    .result().get(60, TimeUnit.SECONDS);
            long[] expected = values.clone();
            java.util.Arrays.sort(expected);
            assertArrayEquals(expected, sorted);
            long byServers = cluster.servers().stream().mapToLong(s -> s.values().released()).sum();
            if (servers == 1) {
                assertEquals(6, byServers, "the server let go of every value a merge read");
                assertTrue(cluster.servers().get(0).values().bytesRelayed() >= 8L * n,
                        "the result went on to the consumer as it arrived at the server");
            } else {
                assertTrue(byServers >= 6, "the servers that applied the merges let go of what they read: "
                        + byServers);
            }
            Await.until("the producers let go of the values they made or were sent", WAIT,
                    () -> cluster.producers().stream().mapToLong(p -> p.values().released()).sum() >= 6);
        }
    }

    /**
     * A 1 GiB value from one task to the next, over the 512 MiB message limit, through a server and a producer
     * process of 256 MiB of heap each ({@link ChildProcess}): only the worker processes that make and read it hold it
     * whole.
     */
    @Test
    void aGibibyteValuePassesThroughAServerAndAProducerOfAQuarterOfThatInHeap() throws Exception {
        int bytes = 1 << 30;
        try (ChildProcess server = ChildProcess.start("large-server", Cx.class.getName(), "server", "--port", "0",
                "--name", "large", "--no-jmx")) {
            String line = server.awaitLine("listening on", WAIT);
            String address = "127.0.0.1:" + WireClient.parseAddress(line.substring(line.lastIndexOf(' ') + 1))
                    .getPort();
            try (ChildProcess producer = ChildProcess.start("large-producer", Cx.class.getName(), "producer",
                    "--server", address, "--workers", "2", "--name", "large-producer", "--task-heap", "1700");
                 Consumer consumer = Consumer.connect(address)) {
                producer.awaitLine("attached to", WAIT);
                Computation<Long> c = consumer.submit(new DataBench.Hop(bytes));
                assertEquals(bytes, c.result().get(300, TimeUnit.SECONDS));
            }
        }
    }
}
