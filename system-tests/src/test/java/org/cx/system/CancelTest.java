package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.producer.Producer;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a computation stops it on every server and producer; the network carries on. An administrator's MBean
 * operations do the same (cancel) and drain a producer.
 */
class CancelTest {
    private static final Load LEAF_5MS = Load.ofMillis(Load.Kind.SLEEP, 0, 5, 0);

    @Test
    void aCancelledComputationLeavesEveryServerAndProducerAndSaysSo() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("cancel"), 2, 4, 2, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> big = consumer.submit(new Fib(24, LEAF_5MS)); // about 140 s of leaves on 8 workers
            Await.until("its tasks spread over both servers", Clusters.TIMEOUT,
                    () -> cluster.servers().stream().allMatch(s -> s.status().ready() > 0));
            long start = System.nanoTime();
            big.cancel().get(10, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> big.result().get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("cancelled"), e.getCause().getMessage());
            Await.until("no task of it left on any server or producer", Clusters.TIMEOUT,
                    () -> cluster.servers().stream().allMatch(s -> s.status().ready() == 0)
                            && cluster.producers().stream().allMatch(p -> p.cachedTasks() == 0));
            System.out.printf("cancel to the last server and producer without its tasks: %.0f ms%n",
                    (System.nanoTime() - start) / 1e6);

            String again = assertThrows(ExecutionException.class, () -> big.cancel().get(10, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(again.contains("is over already") || again.contains("no computation"), again);
            String unknown = assertThrows(ExecutionException.class, () -> consumer.cancel(42).get(10, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(unknown.contains("no computation 2a of this user"), unknown);

            // An administrator cancels a computation through its MBean's operation (what jconsole invokes).
            Computation<Long> other = consumer.submit(new Fib(24, LEAF_5MS));
            javax.management.MBeanServer mbeans = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            javax.management.ObjectName pattern = new javax.management.ObjectName("org.cx:type=Computation,id="
                    + Long.toHexString(other.id()) + ",*");
            javax.management.ObjectName mbean = Await.value("its MBean", Clusters.TIMEOUT,
                    () -> mbeans.queryNames(pattern, null).stream().findFirst().orElse(null),
                    java.util.Objects::nonNull);
            assertEquals("computation " + Long.toHexString(other.id()) + " cancelled",
                    mbeans.invoke(mbean, "cancel", new Object[0], new String[0]));
            String byAdmin = assertThrows(ExecutionException.class, () -> other.result().get(10, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(byAdmin.contains("cancelled by an administrator"), byAdmin);

            long before = cluster.producers().stream().mapToLong(Producer::tasksRun).sum();
            assertEquals(Fib.value(12), consumer.<Long>submit(new Fib(12)).result().get(60, TimeUnit.SECONDS));
            assertTrue(cluster.producers().stream().mapToLong(Producer::tasksRun).sum() > before,
                    "the producers run the next computation");
            for (TaskServerNode s : cluster.servers()) {
                assertEquals(0, s.status().ready(), s.status().name() + " holds no ready task");
            }

            // An administrator drains a producer through its MBean: it leaves, and the others carry on.
            Producer drained = cluster.producers().get(0);
            javax.management.ObjectName producerBean = mbeans.queryNames(new javax.management.ObjectName(
                    "org.cx:type=Producer,name=" + javax.management.ObjectName.quote(drained.config().name()) + ",*"),
                    null).iterator().next();
            int attached = cluster.servers().stream().mapToInt(s -> s.status().producers()).sum();
            String said = (String) mbeans.invoke(producerBean, "drain", new Object[0], new String[0]);
            assertTrue(said.startsWith("draining producer " + drained.config().name()), said);
            drained.disconnected().get(60, TimeUnit.SECONDS);
            Await.until("the drained producer gone from its server", Clusters.TIMEOUT,
                    () -> cluster.servers().stream().mapToInt(s -> s.status().producers()).sum() == attached - 1);
            assertEquals(Fib.value(12), consumer.<Long>submit(new Fib(12)).result().get(60, TimeUnit.SECONDS));
        }
    }
}
