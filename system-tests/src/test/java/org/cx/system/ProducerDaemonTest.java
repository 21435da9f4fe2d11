package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;

/** {@code cx producer} as a daemon: it waits for its server, comes back after it, and leaves without losing work. */
class ProducerDaemonTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Started before its server, it attaches when the server comes, and again when the server is restarted. */
    @Test
    void aProducerWaitsForItsServerAndComesBackAfterARestart() throws Exception {
        int port = ServerProcesses.freePort();
        String address = "127.0.0.1:" + port;
        try (ChildProcess producer = ChildProcess.start("daemon", Cx.class.getName(), "producer", "--server",
                address, "--workers", "2", "--name", "daemon", "--no-jmx")) {
            producer.awaitLine("waits for a server", WAIT);
            for (int run = 1; run <= 2; run++) {
                try (ChildProcess server = ChildProcess.start("server-" + run, Cx.class.getName(), "server",
                        "--port", String.valueOf(port), "--name", "s" + run, "--no-jmx")) {
                    server.awaitLine("listening on", WAIT);
                    int attaches = run;
                    Await.until("attach number " + run, WAIT, () -> producer.output().stream()
                            .filter(l -> l.contains("attached to " + address)).count() == attaches);
                    try (Consumer consumer = Consumer.connect(address)) {
                        assertEquals(Fib.value(12), consumer.<Long>submit(new Fib(12)).result()
                                .get(60, TimeUnit.SECONDS));
                    }
                    server.kill();
                }
                assertTrue(producer.isAlive(), "the producer outlives its server");
            }
        }
    }

    /**
     * On SIGTERM a producer gives back what it has cached, finishes what it runs and sends those results: no task it
     * had is run twice, and another producer finishes the computation.
     */
    @Test
    void aProducerStoppedBySigtermFinishesWhatItRunsAndGivesBackTheRest() throws Exception {
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer()) {
            TaskServerNode server = cluster.server();
            try (ChildProcess leaving = ChildProcess.start("leaving", Cx.class.getName(), "producer",
                    "--server", "127.0.0.1:" + server.port(), "--workers", "2", "--name", "leaving", "--no-jmx")) {
                leaving.awaitLine("attached to", WAIT);
                Computation<Long> c = consumer.submit(new Fib(13, Load.ofMillis(Load.Kind.SLEEP, 0, 20, 0)));
                Await.until("the producer to be busy", WAIT, () -> server.status().tasksCompleted() > 100);
                leaving.terminate(); // SIGTERM: tasks are running and cached
                leaving.awaitLine("stopped (", WAIT);
                leaving.awaitExit(WAIT);
                Await.until("the server took back the tasks it had cached", WAIT,
                        () -> server.status().tasksReleased() > 0);
                cluster.addProducer(2, true);
                assertEquals(Fib.value(13), c.result().get(120, TimeUnit.SECONDS));
            }
            assertEquals(1, server.audit().maxApplied(), "no task's effects applied twice");
            assertEquals(Fib.taskCount(13), server.status().completionsReceived(),
                    "each task ran once: none of the leaving producer's was abandoned and run again");
        }
    }
}
