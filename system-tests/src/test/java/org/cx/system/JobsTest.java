package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.Diagnosis;
import org.cx.api.SubmitOptions;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;

/** A consumer's computations: priorities that order them, a timeout, listing them and waiting on one. */
class JobsTest {
    private static final Load LEAF_2MS = Load.ofMillis(Load.Kind.SLEEP, 0, 2, 0);

    @Test
    void aHigherPriorityComputationOvertakesAndAChangeOfPriorityTakesEffect() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("priorities"), 2, 4, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> first = consumer.submit(new Fib(18, LEAF_2MS), SubmitOptions.defaults(), r -> { });
            first.id();
            Computation<Long> urgent = consumer.submit(new Fib(18, LEAF_2MS), SubmitOptions.defaults().withPriority(5),
                    r -> { });
            assertEquals(Fib.value(18), urgent.result().get(60, TimeUnit.SECONDS));
            assertFalse(first.result().isDone(), "priority 5 finished first, though submitted second");
            assertEquals(Fib.value(18), first.result().get(60, TimeUnit.SECONDS));

            Computation<Long> late = consumer.submit(new Fib(18, LEAF_2MS), SubmitOptions.defaults(), r -> { });
            late.id();
            Computation<Long> other = consumer.submit(new Fib(18, LEAF_2MS), SubmitOptions.defaults().withPriority(5),
                    r -> { });
            late.changePriority(10).get(10, TimeUnit.SECONDS);
            assertEquals(Fib.value(18), late.result().get(60, TimeUnit.SECONDS));
            assertFalse(other.result().isDone(), "raised to 10, the first one overtook the one of priority 5");
            assertEquals(Fib.value(18), other.result().get(60, TimeUnit.SECONDS));

            String over = assertThrows(ExecutionException.class, () -> late.changePriority(1).get(10, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(over.contains("no computation") || over.contains("is over already"), over);
        }
    }

    @Test
    void aComputationPastItsTimeoutFailsSayingSo() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("timeout"), 1, 2, true);
             Consumer consumer = cluster.consumer()) {
            Computation<Long> slow = consumer.submit(new Fib(24, LEAF_2MS),
                    SubmitOptions.defaults().withTimeout(Duration.ofMillis(300)), r -> { });
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> slow.result().get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("ran longer than its timeout of 0.3 s"),
                    e.getCause().getMessage());
            Await.until("its tasks gone", Clusters.TIMEOUT, () -> cluster.servers().getFirst().status().ready() == 0);
            var quick = consumer.submit(new Fib(10), SubmitOptions.defaults().withTimeout(Duration.ofMinutes(1)));
            long value = quick.result().get(60, TimeUnit.SECONDS); // typed by the root (a ValueTask<Long>): no witness
            assertEquals(Fib.value(10), value, "a timeout not reached changes nothing");
        }
    }

    @Test
    void computationsAreListedAndAWatchLeavesTheResultToCollect() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("list"), 1, 2, true);
             Consumer submitter = cluster.consumer();
             Consumer other = cluster.consumer()) {
            Computation<Long> running = submitter.submit(new Fib(18, LEAF_2MS),
                    SubmitOptions.defaults().withPriority(-3), r -> { });
            long id = running.id();
            List<Diagnosis> listed = other.computations().get(10, TimeUnit.SECONDS);
            assertEquals(1, listed.size(), listed.toString());
            assertEquals(id, listed.getFirst().computation());
            assertEquals("RUNNING", listed.getFirst().phase());
            assertEquals(-3, listed.getFirst().priority());

            Computation<Long> watched = other.watch(id);
            assertEquals(Fib.value(18), watched.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.value(18), running.result().get(10, TimeUnit.SECONDS));
            // the submitter collected it, so it is gone; a computation only watched stays for collection
            long keptId;
            try (Consumer leaving = cluster.consumer()) { // gone before it could collect it
                keptId = leaving.submit(new Fib(12), SubmitOptions.defaults(), r -> { }).id();
            }
            try (Consumer watcher = cluster.consumer()) {
                assertEquals(Fib.value(12), watcher.<Long>watch(keptId).result().get(60, TimeUnit.SECONDS));
                Diagnosis done = watcher.computations().get(10, TimeUnit.SECONDS).stream()
                        .filter(d -> d.computation() == keptId).findFirst().orElseThrow();
                assertEquals("DONE", done.phase());
                assertTrue(done.completed() > 0, done.toString());
                assertEquals(Fib.value(12), watcher.<Long>collect(keptId, r -> { }).result().get(60, TimeUnit.SECONDS));
            }
        }
    }
}
