package org.cx.system;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.ResultListener;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A consumer may submit, disconnect, and collect the result later from another connection. */
class ConsumerDetachTest {

    @Test
    void submitDisconnectAndCollectLater() throws Exception {
        try (LocalCluster cluster = Clusters.audited(2, 2, true)) {
            long id;
            try (Consumer first = cluster.consumer()) {
                id = first.submit(new Fib(17, Load.ofMillis(Load.Kind.SLEEP, 0, 0.2, 0))).id();
            }
            Await.until("the computation to finish without its consumer", Clusters.TIMEOUT,
                    () -> cluster.server().status().tasksCompleted() >= Fib.taskCount(17));
            CompletableFuture<Long> viaCallback = new CompletableFuture<>();
            try (Consumer second = cluster.consumer()) {
                Computation<Long> later = second.collect(id, (ResultListener<Long>) viaCallback::complete);
                assertEquals(Fib.value(17), later.result().get(60, TimeUnit.SECONDS));
                assertEquals(Fib.value(17), viaCallback.get(1, TimeUnit.SECONDS), "processResult was called");
            }
            try (Consumer third = cluster.consumer()) {
                ExecutionException gone = assertThrows(ExecutionException.class,
                        () -> third.collect(id, r -> { }).result().get(60, TimeUnit.SECONDS));
                assertTrue(gone.getCause().getMessage().contains("already collected"), gone.getCause().getMessage());
            }
        }
    }

    /** The connection breaks while its server lives on: the consumer asks that server again, not only its mirrors. */
    @Test
    void aBrokenConnectionIsMendedOnTheSameServer() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("mend"), 2, 2, 2, true)) {
            try (Consumer consumer = cluster.consumer()) {
                Computation<Long> run = consumer.submit(new Fib(15, Load.ofMillis(Load.Kind.SLEEP, 0, 1, 0)));
                run.id(); // accepted
                consumer.cutConnection();
                assertEquals(Fib.value(15), run.result().get(60, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void uncollectedResultExpires() throws Exception {
        ServerConfig config = ServerConfig.defaults().withResultRetention(Duration.ofMillis(200));
        try (LocalCluster cluster = LocalCluster.start(config, 1, 1, true)) {
            long id;
            try (Consumer first = cluster.consumer()) {
                id = first.submit(new Fib(10)).id();
            }
            Await.until("the result to expire", Clusters.TIMEOUT,
                    () -> cluster.server().status().computations() == 0
                            && cluster.server().status().tasksCompleted() == Fib.taskCount(10));
            try (Consumer second = cluster.consumer()) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> second.collect(id, r -> { }).result().get(60, TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().contains("expired"), e.getCause().getMessage());
            }
        }
    }
}
