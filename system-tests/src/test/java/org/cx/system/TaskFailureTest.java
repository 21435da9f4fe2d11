package org.cx.system;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.ComputationFailedException;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.consumer.NetworkProbe;
import org.cx.examples.fib.Fib;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.wire.Message;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A task that throws, and a task whose class the producer does not have: that computation fails, clearly. */
class TaskFailureTest {

    @Test
    void throwingTaskFailsItsComputationAndNothingElse() throws Exception {
        try (LocalCluster cluster = Clusters.audited(2, 2, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> healthy = consumer.submit(new Fib(20));
            Computation<Object> doomed = consumer.submit(new TestTasks.Boom());
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> doomed.result().get(60, TimeUnit.SECONDS));
            ComputationFailedException failure = assertInstanceOf(ComputationFailedException.class, e.getCause());
            assertEquals(Long.toHexString(doomed.id()) + ":/", failure.taskId());
            assertTrue(failure.getMessage().contains("IllegalStateException: boom"), failure.getMessage());
            assertEquals(Fib.value(20), healthy.result().get(60, TimeUnit.SECONDS));
            assertEquals(Fib.value(15), consumer.<Long>submit(new Fib(15)).result().get(60, TimeUnit.SECONDS),
                    "the server and producers carry on");
        }
    }

    /**
     * Each of these once hung its computation without a word, their messages being over one frame (16 MiB): now they
     * travel in fragments, between producers, servers, mirrors and the consumer.
     */
    @Test
    void aLargeResultManyChildrenAndLargeInputsTravelAcrossServers() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("large")
                .withAuditEffects(true), 2, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            Computation<byte[]> bigValue = consumer.submit(new TestTasks.BigResult(20 << 20));
            Computation<Integer> manyChildren = consumer.submit(new TestTasks.ManyChildren(300, 64 << 10));
            Computation<Long> largeInputs = consumer.submit(new TestTasks.LargePair(12 << 20));
            assertEquals(20 << 20, bigValue.result().get(120, TimeUnit.SECONDS).length);
            assertEquals(64 << 10, manyChildren.result().get(120, TimeUnit.SECONDS));
            assertEquals(24L << 20, largeInputs.result().get(120, TimeUnit.SECONDS));
        }
    }

    /**
     * Values that each fit a message but together exceed one, completed at about the same time on servers that
     * mirror each other: every mirror batch that carries them fits a message.
     */
    @Test
    void manyLargeValuesOnAMirroredNetworkComplete() throws Exception {
        System.setProperty("cx.maxMessageBytes", Integer.toString(24 << 20));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("batches")
                .withAuditEffects(true), 2, 4, 1, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> c = consumer.submit(new TestTasks.ManyLarge(8, 8 << 20));
            assertEquals(8L * (8 << 20), c.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.value(12), consumer.<Long>submit(new Fib(12)).result().get(60, TimeUnit.SECONDS),
                    "the network carries on");
        } finally {
            System.clearProperty("cx.maxMessageBytes");
        }
    }

    /**
     * A server holding more values than one message can carry is joined by a second, which mirrors it: the
     * snapshot of its state goes in parts, and the network becomes tolerant of a failure.
     */
    @Test
    void aSnapshotLargerThanAMessageReachesANewMirrorInParts() throws Exception {
        System.setProperty("cx.maxMessageBytes", Integer.toString(24 << 20));
        ServerConfig config = ServerConfig.defaults().withName("parts");
        try (LocalCluster cluster = LocalCluster.start(config, 1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> c = consumer.submit(new TestTasks.HeldArrays(2, 16 << 20));
            Await.until("two 16 MiB values stored and waiting", Clusters.TIMEOUT, () -> {
                org.cx.api.Diagnosis d = c.diagnose().join();
                return d.waitingTasks().stream() // the sum, and two holders of a value waiting for input 1
                        .filter(w -> w.missing().length == 1 && w.missing()[0] == 1).count() == 2;
            });
            String root = cluster.server().config().host() + ":" + cluster.server().port();
            try (TaskServerNode joiner = TaskServerNode.start(config.withPort(0).withName("parts-1")
                    .withNetwork(config.network().withJoin(root)))) {
                Await.until("the joined network tolerant of a failure", Clusters.TIMEOUT, () -> {
                    try {
                        Message.NetworkStatus s = NetworkProbe.status(root);
                        return s.servers().length == 2 && s.tolerant();
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
                assertEquals("RUNNING", c.diagnose().join().phase());
                assertEquals("parts-1", joiner.status().name());
            }
        } finally {
            System.clearProperty("cx.maxMessageBytes");
        }
    }

    /** Over the message limit (here 24 MiB), a task's effects or a task with its inputs fail, saying what to do. */
    @Test
    void valuesOverTheMessageLimitGoByReferenceAndEffectsOverItFailSayingWhatToDo() throws Exception {
        System.setProperty("cx.maxMessageBytes", Integer.toString(24 << 20));
        try (LocalCluster cluster = Clusters.audited(1, 2, true);
             Consumer consumer = cluster.consumer()) {
            Computation<byte[]> bigValue = consumer.submit(new TestTasks.BigResult(30 << 20));
            Computation<Long> largeInputs = consumer.submit(new TestTasks.LargePair(15 << 20));
            Computation<Integer> tooManyTasks = consumer.submit(new TestTasks.ManyChildren(400, 64 << 10));
            assertEquals(30 << 20, bigValue.result().get(60, TimeUnit.SECONDS).length, "a value is never one message");
            assertEquals(30L << 20, largeInputs.result().get(60, TimeUnit.SECONDS));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> tooManyTasks.result().get(60, TimeUnit.SECONDS));
            String message = e.getCause().getMessage();
            assertTrue(message.contains("over the message limit of") && message.contains("-Dcx.maxMessageBytes")
                    && message.contains("400 stored tasks") && message.contains(Long.toHexString(tooManyTasks.id())),
                    message);
            assertEquals(Fib.value(15), consumer.<Long>submit(new Fib(15)).result().get(60, TimeUnit.SECONDS),
                    "the server and producers carry on");
        } finally {
            System.clearProperty("cx.maxMessageBytes");
        }
    }

    /** A second value to one input once went silently nowhere; now it fails, unless the task lets the first win. */
    @Test
    void aSecondDifferentValueToOneInputFailsTheComputationUnlessTheTaskTakesTheFirst() throws Exception {
        TestTasks.GATE = new CountDownLatch(1);
        try (LocalCluster cluster = Clusters.audited(1, 4, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Object> strict = consumer.submit(new TestTasks.Race(false));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> strict.result().get(60, TimeUnit.SECONDS));
            String message = e.getCause().getMessage();
            assertTrue(message.contains("second, different value for its input 0")
                    && message.contains("Task.firstInputWins()"), message);
            TestTasks.GATE.countDown();
            Object first = consumer.submit(new TestTasks.Race(true)).result().get(60, TimeUnit.SECONDS);
            assertTrue(first.equals(1L) || first.equals(2L), "one of the two values: " + first);
        } finally {
            TestTasks.GATE.countDown();
        }
    }

    /** A composition that waits for an input nobody sends once waited with no word; now it can say why. */
    @Test
    void aComputationWaitingForAnInputNobodySendsSaysWhichTaskWaitsForWhich() throws Exception {
        try (LocalCluster cluster = Clusters.audited(1, 2, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Object> c = consumer.submit(new TestTasks.Forgetful());
            Await.until("the computation to stall", Clusters.TIMEOUT,
                    () -> c.diagnose().join().stalled());
            org.cx.api.Diagnosis d = c.diagnose().get(10, TimeUnit.SECONDS);
            assertEquals("RUNNING", d.phase());
            assertEquals(1, d.waiting());
            assertEquals(0, d.ready() + d.running());
            org.cx.api.Diagnosis.Waiting pick = d.waitingTasks().get(0);
            assertEquals(2, pick.arity());
            assertEquals(List.of(1), java.util.Arrays.stream(pick.missing()).boxed().toList());
            String text = d.describe();
            assertTrue(text.contains("stalled") && text.contains("task " + pick.task() + " waits for input 1 of 2"),
                    text);
            System.out.println(text);

            Computation<Long> healthy = consumer.submit(new Fib(12));
            assertEquals(Fib.value(12), healthy.result().get(60, TimeUnit.SECONDS));
            ExecutionException gone = assertThrows(ExecutionException.class,
                    () -> consumer.diagnose(healthy.id()).get(10, TimeUnit.SECONDS));
            assertTrue(gone.getCause().getMessage().contains("no computation"), gone.getCause().getMessage());
        }
    }

    /** A lambda in a task's field was accepted and failed later on a producer with a hidden class's name. */
    @Test
    void aTaskHoldingALambdaIsRefusedWhereItIsStored() throws Exception {
        try (LocalCluster cluster = Clusters.audited(1, 2, true);
             Consumer consumer = cluster.consumer()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> consumer.submit(new TestTasks.HoldsALambda()));
            assertTrue(refused.getMessage().contains("cannot encode root task")
                    && refused.getMessage().contains("is a lambda"), refused.getMessage());

            Computation<Object> c = consumer.submit(new TestTasks.SpawnsALambda());
            ExecutionException e = assertThrows(ExecutionException.class, () -> c.result().get(60, TimeUnit.SECONDS));
            String message = e.getCause().getMessage();
            assertTrue(message.contains("cannot encode task " + TestTasks.HoldsALambda.class.getName())
                    && message.contains("value (" + TestTasks.HoldsALambda.class.getName() + ")"), message);
            assertEquals(Fib.value(15), consumer.<Long>submit(new Fib(15)).result().get(60, TimeUnit.SECONDS),
                    "the server and producers carry on");
        }
    }

    @Test
    void taskClassTheProducerDoesNotHaveIsReportedToTheConsumer() throws Exception {
        try (TaskServerNode server = TaskServerNode.start(ServerConfig.defaults());
             ChildProcess producer = ChildProcess.startWithout("test-classes", "no-test-classes",
                     Cx.class.getName(), "producer", "--server", "127.0.0.1:" + server.port(), "--workers", "2");
             Consumer consumer = Consumer.connect(server.address())) {
            producer.awaitLine("attached to", Duration.ofSeconds(30));
            Await.until("the producer to join", Clusters.TIMEOUT, () -> server.status().producers() == 1);
            Computation<Object> c = consumer.submit(new TestTasks.WhereAmI(false));
            ExecutionException e = assertThrows(ExecutionException.class, () -> c.result().get(60, TimeUnit.SECONDS));
            String message = e.getCause().getMessage();
            assertTrue(message.contains(TestTasks.WhereAmI.class.getName()), message);
            assertTrue(message.contains("not in this computation's code"), message);
            assertEquals(Fib.value(18), consumer.<Long>submit(new Fib(18)).result().get(60, TimeUnit.SECONDS),
                    "the same producer still runs computations whose classes it has");
        }
    }

    @Test
    void executeOnServerTasksRunOnTheServerWhenAllowed() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("on-server")
                .withServerTasks(true), 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            String onServer = consumer.<String>submit(new TestTasks.WhereAmI(true)).result().get(60, TimeUnit.SECONDS);
            String onProducer = consumer.<String>submit(new TestTasks.WhereAmI(false)).result().get(60, TimeUnit.SECONDS);
            assertTrue(onServer.startsWith("cx-server-task"), onServer);
            assertTrue(onProducer.contains("worker"), onProducer);
        }
    }

    @Test
    void byDefaultAServerRunsNoApplicationCodeAndSaysWhy() throws Exception {
        try (LocalCluster cluster = Clusters.audited(1, 1, true);
             Consumer consumer = cluster.consumer()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> consumer.<String>submit(new TestTasks.WhereAmI(true)).result().get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("--allow-server-tasks"), e.getCause().getMessage());
            assertTrue(consumer.<String>submit(new TestTasks.WhereAmI(false)).result().get(60, TimeUnit.SECONDS)
                    .contains("worker"), "tasks for producers run as before");
        }
    }
}
