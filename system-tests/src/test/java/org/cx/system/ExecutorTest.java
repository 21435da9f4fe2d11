package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.consumer.CxExecutor;
import org.cx.examples.linpack.Linpack;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;

/** An ExecutorService whose callables run as tasks on the network's producers. */
class ExecutorTest {

    /** Squares a number. */
    record Square(long x) implements Callable<Long> {
        @Override
        public Long call() {
            return x * x;
        }
    }

    /** Fails as a callable may, with a checked exception. */
    record Failing(String why) implements Callable<Long> {
        @Override
        public Long call() throws IOException {
            throw new IOException(why);
        }
    }

    /** Opened by the test: until then a {@link Gated} call runs on (the producers run in this JVM). */
    static final CountDownLatch GATE = new CountDownLatch(1);

    /** Runs until the test opens the gate. */
    record Gated(long value) implements Callable<Long> {
        @Override
        public Long call() throws InterruptedException {
            if (!GATE.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the gate");
            }
            return value;
        }
    }

    @Test
    void callablesRunOnTheNetworkWithTheJdksSemantics() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("executor"), 1, 2, 2, true);
             Consumer consumer = cluster.consumer()) {
            CxExecutor executor = CxExecutor.on(consumer);
            assertEquals(49L, executor.submit(new Square(7)).get(60, TimeUnit.SECONDS));

            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> executor.submit(new Failing("disk full")).get(60, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, failed.getCause(), "the callable's own exception type");
            assertEquals("disk full", failed.getCause().getMessage());
            assertTrue(failed.getCause().getStackTrace()[0].getClassName().contains("Failing"),
                    "the producer's stack trace");

            List<Callable<Long>> squares = new ArrayList<>();
            for (long i = 1; i <= 20; i++) {
                squares.add(new Square(i));
            }
            List<Future<Long>> all = executor.invokeAll(squares);
            for (int i = 0; i < all.size(); i++) {
                assertEquals((long) (i + 1) * (i + 1), all.get(i).get(), "invokeAll keeps the order");
            }
            assertEquals(9L, executor.invokeAny(List.of(new Failing("no"), new Square(3))));
            ExecutionException none = assertThrows(ExecutionException.class,
                    () -> executor.invokeAny(List.of(new Failing("a"), new Failing("b"))));
            assertInstanceOf(IOException.class, none.getCause());

            Callable<Long> lambda = () -> 1L;
            RejectedExecutionException refused = assertThrows(RejectedExecutionException.class,
                    () -> executor.submit(lambda));
            assertTrue(refused.getMessage().contains("ambda"), refused.getMessage());

            long assignedBefore = cluster.producers().stream().mapToLong(p -> p.lastAssignNanos()).max().orElse(0);
            Future<Long> slow = executor.submit(new Gated(3));
            Await.until("the slow call reached a producer", Clusters.TIMEOUT,
                    () -> cluster.producers().stream().anyMatch(p -> p.lastAssignNanos() > assignedBefore));
            assertTrue(slow.cancel(true));
            assertTrue(slow.isCancelled() && slow.isDone());
            assertThrows(CancellationException.class, () -> slow.get(10, TimeUnit.SECONDS));
            Await.until("no task of it left on the server", Clusters.TIMEOUT,
                    () -> cluster.server().status().ready() == 0);

            assertFalse(executor.awaitTermination(50, TimeUnit.MILLISECONDS), "not shut down: it does not terminate");
            Future<Long> last = executor.submit(new Gated(200));
            executor.shutdown();
            assertThrows(RejectedExecutionException.class, () -> executor.submit(new Square(2)));
            assertFalse(executor.isTerminated(), "a call still runs");
            GATE.countDown();
            assertTrue(executor.awaitTermination(60, TimeUnit.SECONDS));
            assertTrue(executor.isTerminated());
            assertEquals(200L, last.get());
        }
    }

    /** Linpack called by name, as Ninf calls it: the matrix goes with the call and the solution comes back. */
    @Test
    void linpackByNameSolvesTheSystemItIsSentAndSaysWhenItIsSingular() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("linpack"), 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            CxExecutor executor = CxExecutor.on(consumer);
            int n = 400;
            double[] a = Linpack.matrix(n, 42);
            double[] x = (double[]) executor.call(Linpack.class, "solve", n, a, Linpack.onesRhs(a, n))
                    .get(60, TimeUnit.SECONDS);
            assertTrue(Linpack.errorFromOnes(x) < 1e-9, "error " + Linpack.errorFromOnes(x));
            ExecutionException singular = assertThrows(ExecutionException.class,
                    () -> executor.call(Linpack.class, "solve", 2, new double[4], new double[2]).get(60,
                            TimeUnit.SECONDS));
            assertInstanceOf(ArithmeticException.class, singular.getCause());
            assertTrue(singular.getCause().getMessage().contains("singular"), singular.getCause().getMessage());
            executor.shutdown();
        }
    }
}
