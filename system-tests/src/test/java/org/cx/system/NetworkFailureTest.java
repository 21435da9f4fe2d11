package org.cx.system;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.api.Computation;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.testing.Await;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Paper §4.2 with real processes: servers are {@code cx server} processes, killed with SIGKILL or frozen with
 * SIGSTOP while F(n) runs; producers and the consumer are in this JVM. After every failure the result is right, no
 * completion is committed twice, and no committed task runs again.
 */
class NetworkFailureTest {
    /** A Drop may still be on its way to a producer holding an early copy when a completion commits. */
    private static final Duration DROP_MARGIN = Duration.ofMillis(500);

    @TempDir
    Path dir;

    @BeforeEach
    void clearRecord() {
        TestTasks.EXECUTIONS.clear();
    }

    @Test
    void sevenServersLoseOneAfterAnotherDownToOne() throws Exception {
        long seed = Seeds.seed("NetworkFailureTest.sevenServers");
        Random random = new Random(seed);
        int n = 15;
        try (ServerProcesses network = ServerProcesses.start(7, dir)) {
            network.attachProducers(2);
            try (Consumer consumer = Consumer.connect(network.address(network.atPosition(0)))) {
                Consumer.Pending<Long> run = consumer.submit(new TestTasks.RecordedFib(n, 400));
                List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 6));
                Collections.shuffle(order, random);
                for (int k = 0; k < 6; k++) {
                    int victim = order.get(k);
                    int before = network.committedCount();
                    Await.until("progress before the next failure", ServerProcesses.WAIT,
                            () -> network.committedCount() >= before + 50 || run.result().isDone());
                    System.out.println("killing server process s" + victim + " (kill " + (k + 1) + " of 6)");
                    network.kill(victim);
                    network.awaitTolerant(6 - k);
                }
                assertFalse(run.result().isDone(), "the computation should outlast the failures; make it longer");
                assertEquals(Fib.value(n), resultOf(run, network));
                assertSummaryCountsEveryTask(run, n);
            }
            network.assertExactlyOnce(DROP_MARGIN);
            network.assertCommittedWithin(Fib.taskCount(n));
        }
    }

    /** The result, or on timeout a failure that shows where the network's tasks are. */
    private static long resultOf(Consumer.Pending<Long> run, ServerProcesses network) throws Exception {
        try {
            return run.result().get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no result after 120 s; the network now:\n" + network.describe()
                    + "\ntasks that ran but whose completion no commit log has:\n" + network.ranButUncommitted(20), e);
        }
    }

    /** The failures the paper's repair must survive besides a plain one. */
    enum Failure {
        PRIMARY_ROOT, SECONDARY_ROOT, LEAF_WITH_PRODUCERS, MOVING_LEAF_DURING_REPAIR, FROZEN_SERVER
    }

    @ParameterizedTest
    @EnumSource(Failure.class)
    void survives(Failure failure) throws Exception {
        run(failure);
    }

    private void run(Failure failure) throws Exception {
        int n = 14;
        // Seven servers for the moving leaf: its mirror (position 5) outlives the hole it fills (position 4).
        int servers = failure == Failure.MOVING_LEAF_DURING_REPAIR ? 7 : 6;
        try (ServerProcesses network = ServerProcesses.start(servers, dir)) {
            network.attachProducers(2);
            try (Consumer consumer = Consumer.connect(network.address(network.atPosition(0)))) {
                Consumer.Pending<Long> run = consumer.submit(new TestTasks.RecordedFib(n, 100));
                awaitThirdCommitted(network, n);
                switch (failure) {
                    case PRIMARY_ROOT -> network.kill(network.atPosition(0));
                    case SECONDARY_ROOT -> network.kill(network.atPosition(1));
                    case LEAF_WITH_PRODUCERS -> network.kill(network.atPosition(5));
                    case MOVING_LEAF_DURING_REPAIR -> {
                        // Position 4's hole is filled by the last leaf (position 6); kill that one as it moves.
                        int moving = network.atPosition(6);
                        network.kill(network.atPosition(4));
                        Await.until("the last leaf moved", ServerProcesses.WAIT,
                                () -> network.atPosition(4) == moving);
                        network.kill(moving);
                    }
                    case FROZEN_SERVER -> {
                        int frozen = network.atPosition(2);
                        network.freeze(frozen);
                        network.awaitTolerant(5);
                        network.process(frozen).thaw();
                        assertEquals(3, network.process(frozen).awaitExit(ServerProcesses.WAIT),
                                "a server declared failed stops when it wakes");
                    }
                }
                assertEquals(Fib.value(n), resultOf(run, network));
                assertSummaryCountsEveryTask(run, n);
            }
            network.assertExactlyOnce(DROP_MARGIN);
            network.assertCommittedWithin(Fib.taskCount(n));
        }
    }

    /**
     * The consumer's summary counts every task once, across the failures: a failed server's counts that it had not
     * passed on reach the origin through its heir.
     */
    private static void assertSummaryCountsEveryTask(Consumer.Pending<Long> run, int n) {
        Consumer.Summary s = run.summary();
        assertEquals(Fib.taskCount(n), s.tasks(), "tasks in the consumer's summary: " + s);
        assertTrue(s.executions() >= s.tasks() && s.t1Nanos() > 0, "the consumer's summary: " + s);
    }

    /**
     * With seven servers, position 6 is the lone child of position 3 and mirrored there only: killing both at once
     * destroys every copy of position 6's tasks. The computation cannot finish; it must fail with a reason instead of
     * hanging, and nothing may be applied twice on the way.
     */
    @Test
    void aServerAndItsWholeMirrorGroupFailingFailsTheComputationWithAReason() throws Exception {
        int n = 14;
        try (ServerProcesses network = ServerProcesses.start(7, dir)) {
            network.attachProducers(2);
            try (Consumer consumer = Consumer.connect(network.address(network.atPosition(0)))) {
                Consumer.Pending<Long> run = consumer.submit(new TestTasks.RecordedFib(n, 100));
                awaitThirdCommitted(network, n);
                network.killTogether(network.atPosition(3), network.atPosition(6)); // before any repair moves one
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> run.result().get(120, TimeUnit.SECONDS));
                assertTrue(failed.getCause().getMessage().contains("every copy of its tasks"),
                        failed.getCause().getMessage());
            }
            network.assertExactlyOnce(DROP_MARGIN);
        }
    }

    @Test
    void aCancellationSentAsItsServerDiesStillCancels() throws Exception {
        try (ServerProcesses network = ServerProcesses.start(3, dir)) {
            network.attachProducers(2);
            try (Consumer consumer = Consumer.connect(network.address(network.atPosition(0)))) {
                Consumer.Pending<Long> run = consumer.submit(new TestTasks.RecordedFib(14, 100));
                Await.until("some of it committed", ServerProcesses.WAIT, () -> network.committedCount() >= 20);
                network.kill(network.atPosition(0));
                run.cancel().get(60, TimeUnit.SECONDS); // sent to the dead server, or to its heir after fail-over
                String why = assertThrows(ExecutionException.class,
                        () -> run.result().get(60, TimeUnit.SECONDS)).getCause().getMessage();
                assertTrue(why.contains("cancelled"), why);
                assertEquals(Fib.value(10), consumer.<Long>submit(new Fib(10)).result().get(60, TimeUnit.SECONDS),
                        "the network runs the next computation");
            }
        }
    }

    /**
     * The server that holds a large value, waiting for its reader's other input, dies: its heir holds the mirror's copy
     * (its chunks went to the mirror ahead of the batch that stored it), and the answer is right.
     */
    @Test
    void aLargeValueOutlivesTheServerThatHeldIt() throws Exception {
        int bytes = 24 << 20;
        TestTasks.GATE = new java.util.concurrent.CountDownLatch(1);
        try (ServerProcesses network = ServerProcesses.start(3, dir)) {
            network.attachProducers(1); // in this process: the gate holds the reader's other input back
            int root = network.atPosition(0);
            try (Consumer consumer = Consumer.connect(network.address(root))) {
                Computation<Long> c = consumer.submit(TestTasks.LargePair.thenGated(bytes));
                Await.until("the reader to hold the large value and wait for the other", ServerProcesses.WAIT,
                        () -> c.diagnose().join().waitingTasks().stream().anyMatch(
                                t -> t.arity() == 2 && java.util.Arrays.equals(t.missing(), new int[] {1})));
                network.kill(root);
                TestTasks.GATE.countDown();
                assertEquals(bytes + 1L, c.result().get(120, TimeUnit.SECONDS));
            }
        } finally {
            TestTasks.GATE.countDown();
        }
    }

    private static void awaitThirdCommitted(ServerProcesses network, int n) {
        Await.until("a third of the work committed", ServerProcesses.WAIT,
                () -> network.committedCount() >= Fib.taskCount(n) / 3);
    }
}
