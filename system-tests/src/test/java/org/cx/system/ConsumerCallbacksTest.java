package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.cx.api.ResultListener;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.junit.jupiter.api.Test;

/** The consumer's callbacks run off its event loop: on its own callback thread, or on the application's executor. */
class ConsumerCallbacksTest {

    @Test
    void aBlockedListenerDoesNotStopTheConnection() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults(), 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> listenerThread = new CompletableFuture<>();
            var blocked = consumer.submit(new Fib(8), (ResultListener<Long>) value -> {
                listenerThread.complete(Thread.currentThread().getName());
                await(release);
            });
            String thread = listenerThread.get(60, TimeUnit.SECONDS);
            assertEquals("cx-consumer-callbacks", thread, "processResult runs on the consumer's callback thread");
            // The listener still blocks; the connection carries on: a new submission is accepted.
            var next = consumer.submit(new Fib(9));
            assertTrue(next.id() != 0);
            assertTrue(!blocked.result().isDone(), "the future completes after the listener returns");
            release.countDown();
            assertEquals(Fib.value(8), blocked.result().get(60, TimeUnit.SECONDS));
            assertEquals(Fib.value(9), next.result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void callbacksRunOnTheApplicationsExecutor() throws Exception {
        ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "application-callbacks"));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults(), 1, 1, true);
             Consumer consumer = Consumer.connect(cluster.server().address(), mine)) {
            CompletableFuture<String> listenerThread = new CompletableFuture<>();
            var c = consumer.submit(new Fib(10), (ResultListener<Long>) value ->
                    listenerThread.complete(Thread.currentThread().getName()));
            String stageThread = c.result().thenApply(v -> Thread.currentThread().getName())
                    .get(60, TimeUnit.SECONDS);
            assertEquals("application-callbacks", listenerThread.get(60, TimeUnit.SECONDS));
            assertTrue(stageThread.equals("application-callbacks") || stageThread.equals("main"),
                    "a stage chained to the result runs on the executor (or on the caller, if already complete): "
                            + stageThread);
        } finally {
            mine.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(60, TimeUnit.SECONDS), "released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
