package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.harness.DataBench;
import org.cx.testing.ChildProcess;
import org.cx.wire.WireClient;
import org.junit.jupiter.api.Test;

/** Values larger than any message and than the heaps of the processes they pass through. */
class LargeValueTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

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
