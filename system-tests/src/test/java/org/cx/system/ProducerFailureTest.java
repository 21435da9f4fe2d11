package org.cx.system;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.TaskId;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.producer.Producer;
import org.cx.server.EffectAudit;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Producers that die, lose their connection, or hang: the result is right and effects apply once. */
class ProducerFailureTest {
    private static final Load LEAF_5MS = Load.ofMillis(Load.Kind.SLEEP, 0, 5, 0);

    @Test
    void producerProcessKilledMidTask() throws Exception {
        try (LocalCluster cluster = Clusters.audited(1, 2, true);
             Consumer consumer = cluster.consumer()) {
            TaskServerNode server = cluster.server();
            try (ChildProcess victim = ChildProcess.start("victim", Cx.class.getName(), "producer",
                    "--server", "127.0.0.1:" + server.port(), "--workers", "4", "--name", "victim")) {
                victim.awaitLine("attached to", Duration.ofSeconds(30));
                Await.until("the victim to join", Clusters.TIMEOUT, () -> server.status().producers() == 2);
                Computation<Long> c = consumer.submit(new Fib(14, LEAF_5MS));
                long before = server.status().tasksCompleted();
                Await.until("the victim to be busy", Clusters.TIMEOUT,
                        () -> server.status().tasksCompleted() > before + 200);
                victim.kill(); // SIGKILL, mid-task: it always has tasks running or cached here
                assertEquals(Fib.value(14), c.result().get(120, TimeUnit.SECONDS));
            }
            Await.until("the victim's departure to be noticed", Clusters.TIMEOUT,
                    () -> server.status().producers() == 1);
            assertEquals(1, server.audit().maxApplied(), "no task's effects applied twice");
            assertEquals(Fib.taskCount(14), server.audit().appliedTasks());
            assertTrue(server.status().tasksReleased() > 0, "the victim held tasks that were handed out again");
        }
    }

    /** A producer killed while it makes and sends large values: the others make them again, and the sum is right. */
    @Test
    void producerKilledWhileSendingLargeValues() throws Exception {
        int values = 6;
        int bytes = 48 << 20;
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer()) {
            TaskServerNode server = cluster.server();
            try (ChildProcess victim = ChildProcess.start("victim", Cx.class.getName(), "producer",
                    "--server", "127.0.0.1:" + server.port(), "--workers", "2", "--name", "victim",
                    "--task-heap", "1024")) {
                victim.awaitLine("attached to", Duration.ofSeconds(30));
                Await.until("the victim to join", Clusters.TIMEOUT, () -> server.status().producers() == 1);
                Computation<Long> c = consumer.submit(new TestTasks.ManyLarge(values, bytes));
                Await.until("the victim to be making values", Clusters.TIMEOUT,
                        () -> c.diagnose().join().running() >= 2);
                cluster.addProducer(2, true);
                victim.kill(); // SIGKILL: its values are being made, encoded or sent
                assertEquals((long) values * bytes, c.result().get(120, TimeUnit.SECONDS));
            }
            assertEquals(1, server.audit().maxApplied(), "no task's effects applied twice");
            assertTrue(server.status().tasksReleased() > 0, "the victim held tasks that were handed out again");
        }
    }

    /**
     * The producer that made a large value is gone before the task that reads it runs: the server's copy goes to the
     * producer that runs it, and the answer is right.
     */
    @Test
    void producerGoneAfterMakingALargeValue() throws Exception {
        int bytes = 24 << 20;
        TestTasks.GATE = new CountDownLatch(1);
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer()) {
            TaskServerNode server = cluster.server();
            Producer maker = cluster.addProducer(2, true);
            Computation<Long> c = consumer.submit(TestTasks.LargePair.thenGated(bytes));
            Await.until("the server to hold the large value", Clusters.TIMEOUT, () -> server.values().count() == 1);
            cluster.addProducer(2, true);
            maker.cutConnection();
            maker.close(); // its copy of the value goes with it
            TestTasks.GATE.countDown();
            assertEquals(bytes + 1L, c.result().get(120, TimeUnit.SECONDS));
            assertTrue(server.values().bytesSent() >= bytes, "the server sent its copy on");
            assertEquals(1, server.audit().maxApplied(), "no task's effects applied twice");
        } finally {
            TestTasks.GATE.countDown();
        }
    }

    @Test
    void producerConnectionCutMidRun() throws Exception {
        try (LocalCluster cluster = Clusters.audited(3, 2, true);
             Consumer consumer = cluster.consumer()) {
            TaskServerNode server = cluster.server();
            Producer victim = cluster.producers().get(0);
            Computation<Long> c = consumer.submit(new Fib(15, LEAF_5MS));
            Await.until("the victim to have run tasks", Clusters.TIMEOUT, () -> victim.tasksRun() > 50);
            victim.cutConnection();
            assertEquals(Fib.value(15), c.result().get(120, TimeUnit.SECONDS));
            EffectAudit audit = server.audit();
            assertEquals(1, audit.maxApplied());
            assertEquals(Fib.taskCount(15), audit.appliedTasks());
            assertEquals(2, server.status().producers());
        }
    }

    @Test
    void hungTaskGetsAnEagerCopyAndItsLateCompletionIsDiscarded() throws Exception {
        TestTasks.RELEASE = new CountDownLatch(1);
        TestTasks.STARTED.clear();
        try (LocalCluster cluster = Clusters.audited(2, 1, true);
             Consumer consumer = cluster.consumer()) {
            EffectAudit audit = cluster.server().audit();
            int width = 6;
            Computation<Long> c = consumer.submit(new TestTasks.FanOut(width, 3));
            // Leaf 3's first execution hangs; the other producer gets a copy once it is late, and that one finishes.
            assertEquals(0L + 1 + 2 + 3 + 4 + 5, c.result().get(60, TimeUnit.SECONDS));
            TaskId straggler = TestTasks.STARTED.iterator().next();
            assertTrue(cluster.server().status().eagerReassignments() > 0);
            TestTasks.RELEASE.countDown(); // the hung execution completes now, after the computation ended
            Await.until("the late completion to arrive", Clusters.TIMEOUT, () -> audit.executions(straggler) == 2);
            assertEquals(1, audit.maxApplied(), "the straggler ran twice, its effects applied once");
            assertEquals(width + 2, audit.appliedTasks());
        } finally {
            TestTasks.RELEASE.countDown();
        }
    }
}
