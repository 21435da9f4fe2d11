package org.cx.system;

import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Diffusion (paper §4.2) between real servers over loopback: applications cannot tell one server from many. */
class DiffusionTest {

    @Test
    void readyTasksFlowToAServerWhoseProducersAreIdle() throws Exception {
        int n = 16;
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("diffusion"), 3, 0, 1, true)) {
            // Producers only on the last server: the root, where the consumer submits, has none.
            for (int i = 0; i < 4; i++) {
                cluster.addProducer(2, 1, true);
            }
            Consumer.Summary summary;
            try (Consumer consumer = cluster.consumer()) {
                Consumer.Pending<Long> run = consumer.submit(new Fib(n, Load.NONE));
                assertEquals(Fib.value(n), run.result().get(60, TimeUnit.SECONDS));
                summary = run.summary();
            }
            TaskServerNode.Status root = cluster.server().status();
            TaskServerNode.Status worker = cluster.servers().get(2).status();
            assertEquals(0, root.producers());
            assertTrue(root.tasksDiffusedOut() > 0, "the root sent ready tasks away: " + root);
            assertTrue(worker.tasksDiffusedIn() > 0, "the producers' server received tasks: " + worker);
            long completed = cluster.servers().stream().mapToLong(s -> s.status().tasksCompleted()).sum();
            assertEquals(Fib.taskCount(n), completed, "every task completed once, wherever it went");
            // The consumer's summary counts the whole network, though no task ran at the root it came from.
            assertEquals(Fib.taskCount(n), summary.tasks(), "tasks in the summary: " + summary);
            assertTrue(summary.executions() >= summary.tasks(), "executions in the summary: " + summary);
            long execNanos = cluster.servers().stream().mapToLong(s -> s.status().execNanosApplied()).sum();
            assertEquals(execNanos, summary.t1Nanos(), "T1 in the summary: " + summary);
        }
    }
}
