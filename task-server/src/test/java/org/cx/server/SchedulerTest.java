package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.ValueRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scheduler as a state machine: commands in, outbox entries out, time passed in by hand. */
class SchedulerTest {

    /** Everything the scheduler said, in order. */
    static final class RecordingOutbox implements Outbox {
        final List<String> log = new ArrayList<>();
        final List<ReadyTask> assigned = new ArrayList<>();
        final List<ReadyTask> onServer = new ArrayList<>();
        byte[] result;
        String failure;

        @Override
        public void assign(ProducerState producer, ReadyTask task) {
            assigned.add(task);
            log.add("assign " + task.task().id() + " -> " + producer.name());
        }

        @Override
        public void drop(ProducerState producer, TaskId task) {
            log.add("drop " + task + " @ " + producer.name());
        }

        @Override
        public void keep(ProducerState producer, TaskEnvelope task, ValueEnvelope[] known) {
            log.add("keep " + task.id() + " (" + known.length + " known) @ " + producer.name());
        }

        @Override
        public void unkeep(ProducerState producer, TaskId task) {
            log.add("unkeep " + task + " @ " + producer.name());
        }

        @Override
        public void input(ProducerState producer, ValueEnvelope value) {
            log.add("input " + value.to() + " @ " + producer.name());
        }

        @Override
        public void revoke(ProducerState producer, TaskId[] tasks) {
            log.add("revoke " + List.of(tasks) + " @ " + producer.name());
        }

        @Override
        public void computationStarted(long computation) {
            log.add("started " + computation);
        }

        @Override
        public void computationRuns(ProducerState producer, long computation) {
            log.add("runs " + computation + " @ " + producer.name());
        }

        @Override
        public void computationEnded(long computation, boolean atOrigin) {
            log.add("ended");
            if (atOrigin) {
                endedAtOrigin.add(computation); // every server is told
            }
        }

        final List<String> routed = new ArrayList<>();
        final List<Long> endedAtOrigin = new ArrayList<>();
        final List<String> reprioritized = new ArrayList<>();

        @Override
        public void reprioritized(long computation, int priority) {
            reprioritized.add(computation + ":" + priority);
        }

        @Override
        public void accepted(ConsumerHandle consumer, long requestId, long computation) {
        }

        @Override
        public void route(int server, org.cx.wire.RoutedPayload payload) {
            routed.add(server + " " + payload.getClass().getSimpleName());
        }

        @Override
        public void result(ConsumerHandle consumer, long computation, byte[] value, ComputationSummary summary) {
            result = value;
            log.add("result");
        }

        @Override
        public void failed(ConsumerHandle consumer, long computation, String taskId, String reason) {
            failure = taskId + ": " + reason;
            log.add("failed");
        }

        @Override
        public void runOnServer(ReadyTask task) {
            onServer.add(task);
        }

        ReadyTask lastAssigned() {
            return assigned.get(assigned.size() - 1);
        }
    }

    private RecordingOutbox out;
    private Scheduler scheduler;
    private EffectAudit audit;
    private final ConsumerHandle consumer = () -> 1;
    private long now = 1_000_000_000L;

    @BeforeEach
    void setUp() {
        out = new RecordingOutbox();
        audit = new EffectAudit();
        scheduler = new Scheduler(out, 60_000_000_000L, new java.util.SplittableRandom(42), audit);
        scheduler.tick(now);
    }

    private static TaskEnvelope task(TaskId id, Continuation k, int arity, long priority) {
        return new TaskEnvelope(id, k, arity, priority, false, new byte[] {1});
    }

    private static Completion completion(TaskId id, List<TaskEnvelope> spawned, List<ValueEnvelope> values) {
        return new Completion(id, spawned.toArray(TaskEnvelope[]::new), values.toArray(ValueEnvelope[]::new), 10);
    }

    /** A root that spawns a sum (arity 2) and two leaves whose values go to it; the sum sends the result. */
    private long submitForkJoin() {
        return scheduler.submissions().submit(consumer, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
    }

    /** Submits the fork-join root and hands it to {@code p}, which has an idle worker; returns its id. */
    private TaskId submitToIdle(ProducerState p) {
        long c = submitForkJoin();
        scheduler.request(p, 1, 1);
        return TaskId.root(c);
    }

    /** {@code p} completes the fork-join root: it spawns the sum (waiting for two values) and two leaves. */
    private void completeForkJoinRoot(ProducerState p, TaskId root) {
        TaskId sum = root.child(0);
        scheduler.completed(p, completion(root, List.of(
                task(sum, Continuation.CONSUMER, 2, 0),
                task(root.child(1), Continuation.to(sum, 0), 0, 1),
                task(root.child(2), Continuation.to(sum, 1), 0, 2)), List.of()));
    }

    @Test
    void forkJoinRunsToTheResultAndAppliesEachTaskOnce() {
        ProducerState p = scheduler.addProducer(1, "p1", 1);
        TaskId root = submitToIdle(p);
        assertEquals(root, out.lastAssigned().task().id());

        TaskId sum = root.child(0);
        TaskId left = root.child(1);
        TaskId right = root.child(2);
        completeForkJoinRoot(p, root);
        assertEquals(2, scheduler.readyCount(), "the sum waits for its inputs");

        scheduler.request(p, 2, 1);
        assertEquals(right, out.assigned.get(1).task().id(), "higher priority first");
        assertEquals(left, out.assigned.get(2).task().id());

        scheduler.completed(p, completion(right, List.of(), List.of(new ValueEnvelope(Continuation.to(sum, 1), new byte[] {2}))));
        // A duplicate completion of the same task, with a different value: discarded whole.
        scheduler.completed(p, completion(right, List.of(), List.of(new ValueEnvelope(Continuation.to(sum, 1), new byte[] {9}))));
        scheduler.completed(p, completion(left, List.of(), List.of(new ValueEnvelope(Continuation.to(sum, 0), new byte[] {1}))));
        scheduler.request(p, 1, 1);
        ReadyTask readySum = out.lastAssigned();
        assertEquals(sum, readySum.task().id());
        assertArrayEquals(new byte[] {1}, readySum.inputs()[0]);
        assertArrayEquals(new byte[] {2}, readySum.inputs()[1], "the first value for an input wins");

        scheduler.completed(p, completion(sum, List.of(), List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {3}))));
        assertArrayEquals(new byte[] {3}, out.result);
        assertEquals(1, audit.maxApplied());
        assertEquals(4, audit.appliedTasks());
        assertEquals(5, audit.executions());
        assertEquals(4, scheduler.summary(root.computation()).tasks());
        assertEquals(5, scheduler.summary(root.computation()).executions());
    }

    /** Diffusion takes only ready tasks no producer holds, best first; values for moved tasks' successors go home. */
    @Test
    void diffusionMovesOnlyFreshReadyTasks() {
        ProducerState p = scheduler.addProducer(1, "p1", 1);
        TaskId root = submitToIdle(p);
        TaskId sum = root.child(0);
        TaskId left = root.child(1);
        TaskId right = root.child(2);
        completeForkJoinRoot(p, root);
        scheduler.request(p, 1, 0); // p downloads the best ready task (right) on prefetch credit
        assertEquals(right, out.lastAssigned().task().id());
        assertEquals(1, scheduler.freshCount());

        List<org.cx.wire.RoutedPayload.Transfer> moved = scheduler.diffusion().takeFresh(10);
        assertEquals(1, moved.size());
        assertEquals(List.of(left), List.of(moved.get(0).tasks()).stream().map(t -> t.task().id()).toList(),
                "neither the unready sum nor the downloaded task moves");
        assertEquals(1, moved.get(0).homes()[0], "the moved task's successor lives here (server 1)");
        assertEquals(0, scheduler.freshCount());
        assertEquals(2, scheduler.taskCount(), "the sum and the downloaded task stay");

        // The moved task completes on the other server; its value is routed back here and completes the sum.
        scheduler.routedValue(new RoutedPayload.Value(root.computation(),
                new ValueEnvelope(Continuation.to(sum, 0), new byte[] {1}), RoutedPayload.Tally.NONE));
        scheduler.completed(p, completion(right, List.of(), List.of(new ValueEnvelope(Continuation.to(sum, 1), new byte[] {2}))));
        scheduler.request(p, 1, 1);
        assertEquals(sum, out.lastAssigned().task().id());
    }

    /**
     * Seeding: a computation's first spawned tasks go to each neighbour below at most once, before the idle workers
     * here; never a task that came from elsewhere, and not once the computation has run a while here.
     */
    @Test
    void seedsAreSpawnedHereOncePerNeighbourAndOnlyEarly() {
        ProducerState p = scheduler.addProducer(1, "p1", 3);
        TaskId root = submitToIdle(p);
        assertNull(scheduler.diffusion().takeSeed(7), "the submitted task is not a seed: it was not spawned here");
        TaskId sum = root.child(0);
        TaskId left = root.child(1);
        TaskId right = root.child(2);
        completeForkJoinRoot(p, root);

        org.cx.wire.RoutedPayload.Transfer seed = scheduler.diffusion().takeSeed(7);
        assertNotNull(seed);
        assertEquals(right, seed.tasks()[0].task().id(), "the best fresh task");
        assertNull(scheduler.diffusion().takeSeed(7), "one seed per computation and neighbour");
        scheduler.diffusion().seeded(root.computation(), 8);
        assertNull(scheduler.diffusion().takeSeed(8), "tasks of this computation already passed to or from server 8");
        assertEquals(left, scheduler.diffusion().takeSeed(9).tasks()[0].task().id());

        // A computation that arrived here by diffusion is seeded onwards only from what it spawns here.
        org.cx.wire.RoutedPayload.Transfer arrived = seed;
        Scheduler other = new Scheduler(new RecordingOutbox(), 60_000_000_000L, new java.util.SplittableRandom(43), new EffectAudit());
        other.tick(now);
        ProducerState q = other.addProducer(2, "q1", 1);
        other.diffusion().accept(arrived, 1);
        assertNull(other.diffusion().takeSeed(5), "a transferred task is not sent on as a seed");
        other.request(q, 1, 1);
        other.completed(q, completion(right, List.of(task(right.child(0), Continuation.to(sum, 1), 0, 3)), List.of()));
        assertEquals(1, other.freshCount());
        assertNull(other.diffusion().takeSeed(5), "once the computation has had as many completions here as there are workers");
    }

    /** While neighbours report idle workers, the seeder runs before fresh tasks go to idle workers here. */
    @Test
    void theSeederRunsBeforeIdleWorkersHereAreServed() {
        ProducerState p = scheduler.addProducer(1, "p1", 4);
        List<org.cx.wire.RoutedPayload.Transfer> seeds = new ArrayList<>();
        scheduler.setSeeder(() -> {
            org.cx.wire.RoutedPayload.Transfer seed = scheduler.diffusion().takeSeed(7);
            if (seed != null) {
                seeds.add(seed);
            }
        });
        scheduler.setRemoteIdle(9);
        long c = submitForkJoin();
        scheduler.request(p, 4, 4);
        TaskId root = TaskId.root(c);
        assertEquals(root, out.lastAssigned().task().id());
        completeForkJoinRoot(p, root);
        assertEquals(1, seeds.size());
        assertEquals(root.child(2), seeds.get(0).tasks()[0].task().id(), "the best task went to the neighbour");
        assertEquals(root.child(1), out.lastAssigned().task().id(), "the next one to an idle worker here");
    }

    @Test
    void prefetchCreditOnlyGetsFreshTasksAndIdleWorkersComeFirst() {
        ProducerState busy = scheduler.addProducer(1, "busy", 1);
        ProducerState idle = scheduler.addProducer(2, "idle", 1);
        scheduler.request(busy, 1, 0);
        scheduler.request(idle, 1, 1);
        submitForkJoin();
        assertEquals("assign " + out.lastAssigned().task().id() + " -> idle", out.log.get(out.log.size() - 1),
                "the one task goes to the idle worker although the busy producer asked first");
        scheduler.request(busy, 0, 0);
        assertEquals(1, out.assigned.size(), "prefetch never gets a copy of a held task");
    }

    @Test
    void withdrawnCreditGetsNoPrefetch() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        scheduler.request(p, 5, 0);
        scheduler.request(p, -7, 0); // more than it asked for: none left, never less
        submitForkJoin();
        assertEquals(0, out.assigned.size(), "no credit left: the fresh task stays here");
        scheduler.request(p, 1, 1);
        assertEquals(1, out.assigned.size(), "credit asked for again is served");
    }

    @Test
    void aLeavingProducersTasksBecomeFreshForOthers() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        long c = submitForkJoin();
        scheduler.request(a, 1, 1);
        scheduler.request(b, 1, 0);
        assertEquals(1, out.assigned.size());
        scheduler.removeProducer(a);
        assertEquals(2, out.assigned.size());
        assertEquals("assign " + TaskId.root(c) + " -> b", out.log.get(out.log.size() - 1));
    }

    @Test
    void tasksGivenBackAreFreshForOthersAndACompletionOfThemFromTheGiverIsRefused() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        long c = submitForkJoin();
        TaskId root = TaskId.root(c);
        scheduler.request(a, 1, 0); // prefetch: a is busy
        scheduler.request(b, 1, 1); // b has an idle worker: a's copy is asked for back
        assertTrue(out.log.contains("revoke [" + root + "] @ a"), out.log.toString());
        scheduler.givenBack(a, new TaskId[] {root, root.child(1)}); // a pauses; it never held the second
        assertEquals("assign " + root + " -> b", out.log.get(out.log.size() - 1));
        assertEquals(0, a.heldCount());
        scheduler.released(a, new TaskId[0]); // a's late answer to the revoke changes nothing
        assertEquals(1, b.heldCount());
        long refusedBefore = scheduler.counters().completionsRefused();
        scheduler.completed(a, new Completion(root, new TaskEnvelope[0], new ValueEnvelope[0], 0));
        assertEquals(refusedBefore + 1, scheduler.counters().completionsRefused(), "a gave it back");
    }

    @Test
    void unstartedPrefetchedCopiesAreRevokedForIdleWorkers() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        long c = submitForkJoin();
        scheduler.request(a, 1, 0); // prefetch: a is busy
        TaskId root = TaskId.root(c);
        scheduler.request(b, 1, 1); // b has an idle worker and nothing fresh is left
        assertTrue(out.log.contains("revoke [" + root + "] @ a"), out.log.toString());
        scheduler.released(a, new TaskId[] {root});
        assertEquals("assign " + root + " -> b", out.log.get(out.log.size() - 1));
    }

    /**
     * A revoke for a neighbour's idle worker that comes back refused (the copy had started since it was prefetched)
     * is followed at once by one for the next copy, not at the neighbour's next report.
     */
    @Test
    void aRefusedRevokeForANeighbourAsksForTheNextCopyAtOnce() {
        ProducerState first = scheduler.addProducer(1, "first", 1);
        ProducerState a = scheduler.addProducer(2, "a", 1);
        ProducerState b = scheduler.addProducer(3, "b", 1);
        TaskId root = submitToIdle(first);
        completeForkJoinRoot(first, root);
        scheduler.request(a, 1, 0); // busy producers: prefetch
        scheduler.request(b, 1, 0);
        TaskId right = root.child(2);
        TaskId left = root.child(1);
        scheduler.setRemoteIdle(1);
        assertEquals("revoke [" + right + "] @ a", lastRevoke(), "the oldest prefetched copy first");
        scheduler.released(a, new TaskId[0]); // a had started it
        assertEquals("revoke [" + left + "] @ b", lastRevoke(), "the next copy, without waiting for a report");
        scheduler.released(b, new TaskId[] {left});
        assertEquals(1, scheduler.freshCount(), "released for the neighbour");
        assertEquals(2, out.log.stream().filter(l -> l.startsWith("revoke")).count(), "nothing more is missing");
    }

    private String lastRevoke() {
        return out.log.stream().filter(l -> l.startsWith("revoke")).reduce((x, y) -> y).orElse("none");
    }

    @Test
    void refusedRevokeIsNotAskedAgainAndALateTaskGetsAnEagerCopy() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        long c = submitForkJoin();
        TaskId root = TaskId.root(c);
        scheduler.request(a, 1, 0);
        scheduler.request(b, 1, 1);
        scheduler.released(a, new TaskId[0]); // a had started it
        int revokes = (int) out.log.stream().filter(l -> l.startsWith("revoke")).count();
        scheduler.request(b, 0, 1);
        assertEquals(revokes, out.log.stream().filter(l -> l.startsWith("revoke")).count());
        assertEquals(1, out.assigned.size(), "not late yet: no copy");

        now += scheduler.latenessNanos() + 1;
        scheduler.tick(now);
        scheduler.dispatchWithEagerCopies();
        assertEquals("assign " + root + " -> b", out.log.get(out.log.size() - 1), "late: eager copy");

        scheduler.completed(b, completion(root, List.of(), List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {7}))));
        assertTrue(out.log.contains("drop " + root + " @ a"));
        scheduler.completed(a, completion(root, List.of(), List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {8}))));
        assertArrayEquals(new byte[] {7}, out.result);
        assertEquals(1, audit.maxApplied());
        assertEquals(2, audit.executions());
    }

    @Test
    void aLateTaskGetsOneCopyEachTimeItIsLateNotOnePerIdleWorker() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        ProducerState c = scheduler.addProducer(3, "c", 1);
        long comp = submitForkJoin();
        scheduler.request(a, 1, 1);
        TaskId root = TaskId.root(comp);
        scheduler.request(b, 1, 1);
        scheduler.request(c, 1, 1);
        now += scheduler.latenessNanos() + 1;
        scheduler.tick(now);
        scheduler.dispatchWithEagerCopies();
        assertEquals(1, scheduler.counters().eagerReassignments(), "one copy, to b or c");
        scheduler.dispatchWithEagerCopies();
        assertEquals(1, scheduler.counters().eagerReassignments(), "not late again yet");

        now += scheduler.latenessNanos() + 1;
        scheduler.tick(now);
        scheduler.dispatchWithEagerCopies();
        assertEquals(2, scheduler.counters().eagerReassignments(), "the copy is late too: one more");
        assertEquals(3, out.assigned.stream().filter(t -> t.task().id().equals(root)).count());
    }

    @Test
    void claimedChildIsHeldByItsProducerWithoutBeingSent() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        ProducerState q = scheduler.addProducer(2, "q", 1);
        TaskId root = submitToIdle(p);
        scheduler.completed(p, forkJoinRoot(root).withClaim(2));
        scheduler.request(q, 2, 1);
        assertEquals(2, out.assigned.size(), "q gets the unclaimed child only");
        assertEquals(root.child(1), out.lastAssigned().task().id());
    }

    @Test
    void aChildCachedByItsProducerIsHeldThereWithoutBeingSentWhileNoWorkerWaits() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        TaskId root = submitToIdle(p);
        scheduler.request(p, 1, 0); // credit for one more, no idle worker
        scheduler.completed(p, forkJoinRoot(root).withClaim(2).withCachedHere(1));
        assertEquals(1, out.assigned.size(), "only the root was sent");
        assertFalse(out.log.stream().anyMatch(l -> l.startsWith("revoke") || l.startsWith("drop")), out.log.toString());
        int before = out.assigned.size();
        ProducerState q = scheduler.addProducer(2, "q", 1);
        scheduler.request(q, 1, 0);
        assertEquals(before, out.assigned.size(), "held by p, the child is not fresh for q's prefetch");
        scheduler.completed(p, leafDone(root.child(1), root.child(0), 0, (byte) 3));
        assertEquals(0, scheduler.counters().completionsRefused(), "p holds it: its completion applies");
    }

    @Test
    void aChildCachedWhileAWorkerWaitsElsewhereIsAskedBackAtOnce() {
        childCachedByPIsReleasedAsAskedWith(1);
    }

    @Test
    void aReleaseThatNamesATaskTwiceCountsItOnce() {
        childCachedByPIsReleasedAsAskedWith(2);
    }

    /** p caches a child while q's worker waits; asked back, p names it {@code times} times in its answer. */
    private void childCachedByPIsReleasedAsAskedWith(int times) {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        ProducerState q = scheduler.addProducer(2, "q", 1);
        TaskId root = submitToIdle(p);
        scheduler.request(q, 1, 1); // q's worker waits, and there is nothing for it
        scheduler.completed(p, forkJoinRoot(root).withClaim(2).withCachedHere(1));
        assertTrue(out.log.contains("revoke [" + root.child(1) + "] @ p"), out.log.toString());
        scheduler.released(p, java.util.Collections.nCopies(times, root.child(1)).toArray(TaskId[]::new));
        assertTrue(out.log.contains("assign " + root.child(1) + " -> q"), "released, it goes to the waiting worker: "
                + out.log);
        assertEquals(1, out.log.stream().filter(l -> l.startsWith("assign " + root.child(1))).count(),
                out.log.toString());
    }

    @Test
    void aProducerThatAttachesMidRunHearsOfEveryComputationRunningHere() {
        long first = submitForkJoin();
        long second = submitForkJoin();
        scheduler.addProducer(9, "late", 1);
        assertEquals(java.util.Set.of("runs " + first + " @ late", "runs " + second + " @ late"),
                out.log.stream().filter(l -> l.startsWith("runs")).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void producersHearOfEveryComputationThatStartsHereSubmittedOrNot() {
        long submitted = submitForkJoin();
        long fromElsewhere = submitted + 1;
        scheduler.branch(fromElsewhere, 2, "");
        scheduler.branch(fromElsewhere, 2, "");
        assertEquals(List.of("started " + submitted, "started " + fromElsewhere),
                out.log.stream().filter(l -> l.startsWith("started")).toList(), "once each");
    }

    @Test
    void theChildrenClaimedAndCachedByAnExecutionThatCameSecondAreDropped() {
        TaskId root = rootRunByPThenQ(run -> run.withClaim(2).withCachedHere(1));
        assertTrue(out.log.contains("drop " + root.child(1) + " @ q"), out.log.toString());
        assertTrue(out.log.contains("drop " + root.child(2) + " @ q"), "q's worker runs it now, and would claim on: "
                + out.log);
        assertFalse(out.log.stream().anyMatch(l -> l.startsWith("drop " + root.child(2) + " @ p")), out.log.toString());
    }

    @Test
    void aChildCachedByAnExecutionThatCameSecondStaysWhereItWasGivenSince() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        q = scheduler.addProducer(2, "q", 1);
        TaskId root = lateRootCopiedTo(p, q);
        scheduler.completed(p, forkJoinRoot(root).withClaim(2));
        scheduler.request(q, 1, 0); // q's worker still runs its copy of the root
        assertTrue(out.log.contains("assign " + root.child(1) + " -> q"), out.log.toString());
        scheduler.completed(q, forkJoinRoot(root).withClaim(2).withCachedHere(1));
        assertFalse(out.log.contains("drop " + root.child(1) + " @ q"),
                "q holds one copy of it, the one it was given, and would never run it: " + out.log);
        scheduler.completed(q, leafDone(root.child(1), root.child(0), 0, (byte) 3));
        assertEquals(0, scheduler.counters().completionsRefused(), "q's run of it applies");
    }

    @Test
    void aRefusedCompletionOfAVoidClaimDropsWhatItsProducerCachedAndKept() {
        TaskId root = rootRunByPThenQ(run -> run.withClaim(2)); // q's claim of root/2 is void
        TaskId claimed = root.child(2); // p's, and q ran it all the same
        scheduler.completed(q, forkJoinRoot(claimed).withClaim(2).withCachedHere(1).keeping(true));
        assertTrue(out.log.contains("drop " + claimed.child(1) + " @ q"), "q's cached child of it: " + out.log);
        assertTrue(out.log.contains("unkeep " + claimed.child(0) + " @ q"), "q's kept sum of it: " + out.log);
        assertFalse(out.log.stream().anyMatch(l -> l.startsWith("drop " + claimed.child(1) + " @ p")),
                out.log.toString());
    }

    /**
     * The root, late on producer p, is copied to producer q; p completes it first, claiming its right leaf, and then q
     * completes it with {@code qsRun} (which came second). Sets {@link #q}.
     */
    private TaskId rootRunByPThenQ(java.util.function.UnaryOperator<Completion> qsRun) {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        q = scheduler.addProducer(2, "q", 1);
        TaskId root = lateRootCopiedTo(p, q);
        scheduler.completed(p, forkJoinRoot(root).withClaim(2));
        scheduler.completed(q, qsRun.apply(forkJoinRoot(root)));
        return root;
    }

    /** The root's run: a sum (arity 2) and the left and right leaves whose values go to it. */
    private static Completion forkJoinRoot(TaskId root) {
        TaskId sum = root.child(0);
        return new Completion(root, new TaskEnvelope[] {
                task(sum, Continuation.CONSUMER, 2, 0),
                task(root.child(1), Continuation.to(sum, 0), 0, 1),
                task(root.child(2), Continuation.to(sum, 1), 0, 2)}, new ValueEnvelope[0], 10);
    }

    private static Completion forkJoinRootKeepingTheSum(TaskId root) {
        return forkJoinRoot(root).withClaim(1).keeping(true);
    }

    /**
     * Set by {@link #keptForkJoin}: producers p and q, and the root and sum of the fork-join computation p started
     * (q also by {@link #rootRunByPThenQ}).
     */
    private ProducerState p;
    private ProducerState q;
    private TaskId root;
    private TaskId sum;

    /** p runs the root, keeps the sum it stored and claims the left leaf; q asks for work and gets the right leaf. */
    private void keptForkJoin() {
        p = scheduler.addProducer(1, "p", 1);
        q = scheduler.addProducer(2, "q", 1);
        root = submitToIdle(p);
        sum = root.child(0);
        scheduler.completed(p, forkJoinRootKeepingTheSum(root));
        scheduler.request(q, 1, 1);
    }

    private static Completion leafDone(TaskId leaf, TaskId sum, int argNo, byte value) {
        return new Completion(leaf, new TaskEnvelope[0],
                new ValueEnvelope[] {new ValueEnvelope(Continuation.to(sum, argNo), new byte[] {value})}, 10);
    }

    @Test
    void theProducerWhoseOwnValueCompletesAKeptTaskRunsItWithoutBeingSentIt() {
        keptForkJoin();
        assertEquals(root.child(2), out.lastAssigned().task().id());
        assertTrue(out.log.contains("keep " + sum + " (0 known) @ q"), "q holds a task whose successor is the sum");

        scheduler.completed(q, leafDone(root.child(2), sum, 1, (byte) 5));
        assertTrue(out.log.contains("input " + Continuation.to(sum, 1) + " @ p"), "forwarded to the other keeper");
        assertFalse(out.log.contains("input " + Continuation.to(sum, 1) + " @ q"), "not back to its sender");

        int assigned = out.assigned.size();
        scheduler.completed(p, leafDone(root.child(1), sum, 0, (byte) 3).withClaimedValue(0));
        scheduler.request(q, 1, 1);
        assertEquals(assigned, out.assigned.size(), "p claimed the sum: nobody is sent it");
        assertEquals(2, scheduler.counters().tasksClaimed(), "the left leaf and the sum were claimed");

        scheduler.completed(p, completion(sum, List.of(),
                List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {8}))));
        assertArrayEquals(new byte[] {8}, out.result);
        assertEquals(1, audit.maxApplied());
    }

    @Test
    void aKeptTaskCompletedByAnotherProducersValueIsHandedOutAndItsKeepersToldWhy() {
        keptForkJoin();
        scheduler.completed(p, leafDone(root.child(1), sum, 0, (byte) 3));
        assertTrue(out.log.contains("input " + Continuation.to(sum, 0) + " @ q"));

        scheduler.completed(q, leafDone(root.child(2), sum, 1, (byte) 5)); // q had not seen p's value yet
        assertTrue(out.log.contains("input " + Continuation.to(sum, 1) + " @ p"), "the completing value tells p");
        scheduler.request(p, 1, 1);
        assertEquals(sum, out.lastAssigned().task().id(), "nobody claimed it: handed out");
        assertEquals(1, scheduler.counters().tasksClaimed(), "only the left leaf was claimed");
    }

    /** A completion of {@code leaf} whose value for input {@code argNo} of {@code sum} travels by reference. */
    private static Completion largeLeafDone(TaskId leaf, TaskId sum, int argNo) {
        byte[] ref = new org.cx.wire.ValueRef(leaf.computation(), argNo, 1, 64 << 20, 7).bytes();
        return new Completion(leaf, new TaskEnvelope[0],
                new ValueEnvelope[] {new ValueEnvelope(Continuation.to(sum, argNo), ref)}, 10);
    }

    /**
     * {@code p} runs the fork-join root and keeps the sum; {@code q}, asking with an idle worker and one task of
     * prefetch, runs the second leaf and keeps the sum too.
     */
    private void bothKeepTheSum() {
        p = scheduler.addProducer(1, "p", 1);
        q = scheduler.addProducer(2, "q", 1);
        root = submitToIdle(p);
        sum = root.child(0);
        scheduler.completed(p, forkJoinRootKeepingTheSum(root));
        scheduler.request(q, 2, 1);
        assertEquals(root.child(2), out.lastAssigned().task().id());
    }

    @Test
    void aTaskGoesToTheProducerThatHoldsItsLargeInputsThoughAnotherAskedFirst() {
        bothKeepTheSum();

        scheduler.completed(p, largeLeafDone(root.child(1), sum, 0));
        assertTrue(out.log.contains("input " + Continuation.to(sum, 0) + " @ q"), "q keeps the sum: sent p's value");
        scheduler.request(p, 1, 1); // p waits for a task; q's request saying it is idle is still on its way
        scheduler.completed(q, largeLeafDone(root.child(2), sum, 1)); // q had not received p's value: no claim

        assertEquals(sum, out.lastAssigned().task().id());
        assertTrue(out.log.contains("assign " + sum + " -> q"), "q holds both inputs: p's was sent to it: " + out.log);
        assertFalse(out.log.contains("input " + Continuation.to(sum, 1) + " @ p"), "the large value stays put");
        assertTrue(out.log.contains("unkeep " + sum + " @ p"), "p lets its copy go");
    }

    /**
     * Before a large value's chunks arrive, the server names who will read it, to pass them on as they come: the
     * consumer for the result; the task's other keepers for a value that does not complete it, while no other input of
     * that task is on its way; nobody for the value that completes it (the task then runs where its inputs are).
     */
    @Test
    void theReadersOfALargeValueAreNamedBeforeItArrives() {
        bothKeepTheSum();
        ValueRef first = ValueRef.of(largeLeafDone(root.child(1), sum, 0).values()[0].value());
        ValueRef second = ValueRef.of(largeLeafDone(root.child(2), sum, 1).values()[0].value());

        assertArrayEquals(new long[] {1}, scheduler.readersAhead(q, second, Continuation.CONSUMER), "the consumer");
        assertArrayEquals(new long[] {2}, scheduler.readersAhead(p, first, Continuation.to(sum, 0)), "q keeps the sum");
        assertArrayEquals(new long[0], scheduler.readersAhead(q, second, Continuation.to(sum, 1)),
                "p's value is on its way: if it comes first, this one completes the sum");
        scheduler.completed(p, largeLeafDone(root.child(1), sum, 0));
        assertArrayEquals(new long[0], scheduler.readersAhead(q, second, Continuation.to(sum, 1)),
                "it completes the sum, which runs where its inputs are");
        assertArrayEquals(new long[0], scheduler.readersAhead(p, first, Continuation.to(root.child(9), 0)),
                "no such task");
    }

    @Test
    void aClaimByAProducerThatHoldsNoCopyIsVoid() {
        keptForkJoin();
        ProducerState r = scheduler.addProducer(3, "r", 1);
        scheduler.completed(q, leafDone(root.child(2), sum, 1, (byte) 5));
        assertFalse(out.log.contains("keep " + sum + " (0 known) @ r"));

        // r claims the sum with a value of p's leaf, which it was never given: refused, claim and all.
        scheduler.completed(r, leafDone(root.child(1), sum, 0, (byte) 3).withClaimedValue(0));
        assertEquals(1, scheduler.counters().completionsRefused());
        scheduler.completed(p, leafDone(root.child(1), sum, 0, (byte) 3));
        scheduler.request(q, 1, 1);
        assertEquals(sum, out.lastAssigned().task().id(), "the claim is void: handed out");
    }

    /** Submits the fork-join root to {@code p}; once it is late, {@code q} gets a copy of it. Returns its id. */
    private TaskId lateRootCopiedTo(ProducerState p, ProducerState q) {
        long c = submitForkJoin();
        scheduler.request(p, 1, 1);
        now += scheduler.latenessNanos() + 1;
        scheduler.tick(now);
        scheduler.request(q, 1, 1);
        scheduler.dispatchWithEagerCopies();
        return TaskId.root(c);
    }

    @Test
    void aSecondCompletionThatKeptCopiesIsToldToDropThem() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        ProducerState q = scheduler.addProducer(2, "q", 1);
        TaskId root = lateRootCopiedTo(p, q);
        scheduler.completed(p, forkJoinRootKeepingTheSum(root));
        scheduler.completed(q, forkJoinRootKeepingTheSum(root));
        assertTrue(out.log.contains("unkeep " + root.child(0) + " @ q"));
        assertFalse(out.log.contains("unkeep " + root.child(0) + " @ p"));
    }

    @Test
    void aCompletionFromAProducerThatDoesNotHoldTheTaskIsRefused() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        ProducerState rogue = scheduler.addProducer(2, "rogue", 1);
        long c = submitForkJoin();
        scheduler.request(p, 1, 1);
        TaskId root = TaskId.root(c);
        scheduler.completed(rogue, new Completion(root, new TaskEnvelope[0],
                new ValueEnvelope[] {new ValueEnvelope(Continuation.CONSUMER, new byte[] {31})}, 10));
        assertEquals(1, scheduler.counters().completionsRefused());
        assertEquals(0, scheduler.counters().tasksCompleted(), "nothing applied");
        scheduler.completed(p, forkJoinRootKeepingTheSum(root));
        assertEquals(1, scheduler.counters().tasksCompleted(), "the holder's completion is");
    }

    /** A consumer whose credential names {@code user}. */
    private static ConsumerHandle userNamed(String user, long peerId) {
        return new ConsumerHandle() {
            @Override
            public long peerId() {
                return peerId;
            }

            @Override
            public String owner() {
                return user;
            }
        };
    }

    /**
     * How many of {@code n} tasks handed out one at a time go to alice's computation, beside bob's; every task takes
     * as long as the fair share guesses a first task takes, so that each costs its user the same.
     */
    private int aliceShareOf(int n, java.util.Set<String> favoured) {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long a = scheduler.submissions().submit(userNamed("alice", 7), task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        long b = scheduler.submissions().submit(userNamed("bob", 8), task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.request(p, 2, 1);
        for (long c : new long[] {a, b}) {
            List<TaskEnvelope> children = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                children.add(task(TaskId.root(c).child(i), Continuation.CONSUMER, 0, 0));
            }
            scheduler.completed(p, new Completion(TaskId.root(c), children.toArray(TaskEnvelope[]::new),
                    new ValueEnvelope[0], ReadyQueues.FIRST_TASK_NANOS));
        }
        scheduler.favour(favoured);
        int alice = 0;
        for (int i = 0; i < n; i++) {
            int before = out.assigned.size();
            scheduler.request(p, 1, 1);
            assertEquals(before + 1, out.assigned.size());
            TaskId t = out.lastAssigned().task().id();
            alice += t.computation() == a ? 1 : 0;
            scheduler.completed(p, new Completion(t, new TaskEnvelope[0], new ValueEnvelope[0],
                    ReadyQueues.FIRST_TASK_NANOS));
        }
        return alice;
    }

    /**
     * Beside a computation fair share clearly favours, the others' tasks are not prefetched; the favoured one's are,
     * but only while more of them are ready than busy producers ask for (they would wait for a worker anyway).
     * Returns how many of {@code small} ready tasks of bob's computation went to the caches of 4 busy producers beside
     * alice's large one, and checks that none of alice's did.
     */
    private int favouredTasksPrefetched(int small) {
        scheduler.dispatcher().largeUsePerWorker(1_000); // a microsecond of every worker makes a computation large
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long a = scheduler.submissions().submit(userNamed("alice", 7), task(TaskId.root(0), Continuation.CONSUMER, 0,
                0), now);
        scheduler.request(p, 1, 1);
        List<TaskEnvelope> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            many.add(task(TaskId.root(a).child(i), Continuation.CONSUMER, 0, 0));
        }
        long tenMs = 10_000_000L;
        scheduler.completed(p, new Completion(TaskId.root(a), many.toArray(TaskEnvelope[]::new), new ValueEnvelope[0],
                tenMs));
        for (int i = 0; i < 10; i++) { // alice's computation uses the producers
            scheduler.request(p, 1, 1);
            scheduler.completed(p, new Completion(out.lastAssigned().task().id(), new TaskEnvelope[0],
                    new ValueEnvelope[0], tenMs));
        }
        long b = scheduler.submissions().submit(userNamed("bob", 8), task(TaskId.root(0), Continuation.CONSUMER, 0,
                0), now);
        scheduler.request(p, 1, 1);
        assertEquals(TaskId.root(b), out.lastAssigned().task().id());
        int before = out.log.size();
        for (int i = 0; i < 4; i++) {
            scheduler.request(scheduler.addProducer(10 + i, "busy" + i, 1), 1, 0); // credit, no idle worker
        }
        List<TaskEnvelope> few = new ArrayList<>();
        for (int i = 0; i < small; i++) {
            few.add(task(TaskId.root(b).child(i), Continuation.CONSUMER, 0, 0));
        }
        scheduler.completed(p, completion(TaskId.root(b), few, List.of()));
        List<String> cached = out.log.subList(before, out.log.size()).stream()
                .filter(l -> l.startsWith("assign ") && l.contains("-> busy")).toList();
        assertTrue(cached.stream().noneMatch(l -> l.contains(TaskId.root(a).toString())),
                "nothing of the large computation is prefetched beside the favoured one: " + cached);
        return cached.size();
    }

    @Test
    void besideAFavouredComputationOnlyItsBacklogIsPrefetched() {
        assertEquals(0, favouredTasksPrefetched(3),
                "3 ready tasks, 4 producers asking: they go to the first worker free");
        setUp();
        assertEquals(4, favouredTasksPrefetched(12), "12 ready tasks: each producer asking caches one");
    }

    @Test
    void usersInCreditWeighTwiceInTheFairShare() {
        int alone = aliceShareOf(30, java.util.Set.of());
        setUp();
        int favoured = aliceShareOf(30, java.util.Set.of("alice"));
        assertTrue(Math.abs(alone - 15) <= 1, "equal shares without favour: alice got " + alone + " of 30");
        assertTrue(Math.abs(favoured - 20) <= 1, "two thirds for alice in credit: she got " + favoured + " of 30");
    }

    @Test
    void aUserPastItsQuotaOfComputationsIsRefusedAndOthersAreNot() {
        scheduler.quotas(new UserQuotas(2, 1_000, 1L << 30, java.time.Duration.ofHours(1), java.time.Duration.ofHours(1),
                java.time.Duration.ofDays(7)));
        ConsumerHandle alice = userNamed("alice", 7);
        for (int i = 0; i < 2; i++) {
            assertNull(scheduler.submissions().submitRefusal(alice));
            scheduler.submissions().submit(alice, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        }
        String refused = scheduler.submissions().submitRefusal(alice);
        assertTrue(refused != null && refused.contains("--max-computations-per-user"), refused);
        assertNull(scheduler.submissions().submitRefusal(userNamed("bob", 8)));
    }

    @Test
    void aComputationThatStoresMoreThanItsUsersQuotaFailsSayingWhy() {
        scheduler.quotas(new UserQuotas(10, 5, 1L << 30, java.time.Duration.ofHours(1), java.time.Duration.ofHours(1),
                java.time.Duration.ofDays(7)));
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long c = scheduler.submissions().submit(userNamed("alice", 7), task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.request(p, 1, 1);
        TaskId root = TaskId.root(c);
        List<TaskEnvelope> many = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            many.add(task(root.child(i), Continuation.CONSUMER, 1, 0)); // never ready: nobody sends their input
        }
        scheduler.completed(p, completion(root, many, List.of()));
        assertTrue(out.log.contains("failed"), out.log.toString());
        assertTrue(out.failure.contains("over its quota of 5"), out.failure);
    }

    @Test
    void aUserWhoseStoredTasksHoldMoreBytesThanItsQuotaHasTheComputationThatStoresThemFail() {
        scheduler.quotas(new UserQuotas(10, 1_000, 100_000, java.time.Duration.ofHours(1),
                java.time.Duration.ofHours(1), java.time.Duration.ofDays(7)));
        ConsumerHandle alice = userNamed("alice", 7);
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long c = scheduler.submissions().submit(alice, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.request(p, 1, 1);
        TaskId root = TaskId.root(c);
        TaskEnvelope big = new TaskEnvelope(root.child(0), Continuation.CONSUMER, 1, 0, false, new byte[60_000]);
        scheduler.completed(p, completion(root, List.of(big), List.of()));
        assertFalse(out.log.contains("failed"), "60,000 bytes are within the quota");
        scheduler.routedValue(new org.cx.wire.RoutedPayload.Value(c, new ValueEnvelope(Continuation.to(root.child(0),
                0), new byte[70_000]), new org.cx.wire.RoutedPayload.Tally(0, 0, 0)));
        assertTrue(out.log.contains("failed"), "its input took it over: " + out.log);
        assertTrue(scheduler.submissions().collect(alice, c));
        assertTrue(out.failure.contains("--max-data-per-user"), out.failure);
    }

    @Test
    void aComputationWhoseConsumerIsGoneTooLongFails() {
        scheduler.quotas(new UserQuotas(10, 1_000, 1L << 30, java.time.Duration.ofMinutes(10), java.time.Duration.ofHours(1),
                java.time.Duration.ofDays(7)));
        ConsumerHandle alice = userNamed("alice", 7);
        long c = scheduler.submissions().submit(alice, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.submissions().consumerGone(alice);
        scheduler.submissions().expire(now + java.time.Duration.ofMinutes(9).toNanos());
        assertFalse(out.log.contains("ended"), "not yet");
        scheduler.submissions().expire(now + java.time.Duration.ofMinutes(11).toNanos());
        assertTrue(out.log.contains("ended"), "its tasks are dropped");
        assertTrue(scheduler.submissions().collect(alice, c), "the failure waits to be collected");
        assertTrue(out.failure.contains("--abandoned-after"), out.failure);
    }

    @Test
    void aTaskThatRunsPastTheTimeLimitFailsItsComputationAndIsCopiedToFewProducers() {
        scheduler.quotas(new UserQuotas(10, 1_000, 1L << 30, java.time.Duration.ofHours(1), java.time.Duration.ofSeconds(30),
                java.time.Duration.ofDays(7)));
        List<ProducerState> producers = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            producers.add(scheduler.addProducer(i, "p" + i, 1));
        }
        long c = scheduler.submissions().submit(consumer, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.request(producers.get(0), 1, 1);
        for (int round = 0; round < 6; round++) { // it never finishes: late again and again
            now += java.time.Duration.ofSeconds(1).toNanos();
            scheduler.tick(now);
            for (ProducerState p : producers) {
                scheduler.request(p, 1, 1);
            }
            scheduler.dispatchWithEagerCopies();
        }
        long holders = out.assigned.stream().filter(t -> t.task().id().equals(TaskId.root(c))).count();
        assertEquals(UserQuotas.MAX_RUNNING_COPIES, holders, "copies of the looping task");
        scheduler.submissions().expire(now + java.time.Duration.ofSeconds(31).toNanos());
        assertTrue(scheduler.submissions().collect(consumer, c));
        assertTrue(out.failure.contains("--task-time-limit"), out.failure);
    }

    /** A validated root that sends {@code value} to the consumer, as producer {@code p} reports it. */
    private static Completion answer(TaskId root, byte value) {
        return new Completion(root, new TaskEnvelope[0], new ValueEnvelope[] {
                new ValueEnvelope(Continuation.CONSUMER, new byte[] {value})}, 10);
    }

    private long submitValidated() {
        return scheduler.submissions().submit(consumer, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), "", 2, now);
    }

    @Test
    void aValidatedTaskAppliesOnlyWhenTwoOwnersAgreeAndGoesToAnotherOwnerForTheSecondOpinion() {
        ProducerState alice1 = scheduler.addProducer(1, "a1", "alice", 1);
        ProducerState alice2 = scheduler.addProducer(2, "a2", "alice", 1);
        ProducerState bob = scheduler.addProducer(3, "b", "bob", 1);
        long c = submitValidated();
        TaskId root = TaskId.root(c);
        scheduler.request(alice1, 1, 1);
        assertEquals(root, out.lastAssigned().task().id());
        scheduler.completed(alice1, answer(root, (byte) 7));
        assertNull(out.result, "one opinion is not enough");
        scheduler.request(alice2, 1, 1);
        assertEquals(1, out.assigned.size(), "not to another producer of the same owner");
        scheduler.request(bob, 1, 1);
        assertEquals(2, out.assigned.size(), "to a producer of another owner");
        scheduler.completed(bob, answer(root, (byte) 7));
        assertArrayEquals(new byte[] {7}, out.result);
        assertEquals(1, scheduler.counters().tasksValidated());
        assertEquals(0, scheduler.counters().validationDissents());
    }

    @Test
    void aResultTheQuorumContradictsIsReportedAndNeverApplied() {
        ProducerState liar = scheduler.addProducer(1, "liar", "mallory", 1);
        ProducerState alice = scheduler.addProducer(2, "a", "alice", 1);
        ProducerState bob = scheduler.addProducer(3, "b", "bob", 1);
        List<String> reported = new ArrayList<>();
        scheduler.onDissent((opinion, task) -> reported.add(opinion.owner() + " " + task));
        long c = submitValidated();
        TaskId root = TaskId.root(c);
        scheduler.request(liar, 1, 1);
        scheduler.completed(liar, answer(root, (byte) 99));
        scheduler.request(alice, 1, 1);
        scheduler.completed(alice, answer(root, (byte) 7));
        assertNull(out.result, "two results that disagree: a third decides");
        scheduler.request(bob, 1, 1);
        scheduler.completed(bob, answer(root, (byte) 7));
        assertArrayEquals(new byte[] {7}, out.result);
        assertEquals(List.of("mallory " + root), reported);
        assertEquals(1, scheduler.counters().validationDissents());
    }

    @Test
    void oneProducerAloneCannotFailAValidatedComputation() {
        ProducerState liar = scheduler.addProducer(1, "liar", "mallory", 1);
        ProducerState alice = scheduler.addProducer(2, "a", "alice", 1);
        long c = submitValidated();
        TaskId root = TaskId.root(c);
        scheduler.request(liar, 1, 1);
        scheduler.taskFailed(liar, root, "it failed, trust me", now);
        assertNull(out.failure);
        scheduler.request(alice, 1, 1);
        scheduler.completed(alice, answer(root, (byte) 7));
        assertNull(out.result, "a failure and a value disagree");
    }

    @Test
    void aValidatedTaskWhoseSecondRunnerLeavesWaitsForAnother() {
        ProducerState alice = scheduler.addProducer(1, "a", "alice", 1);
        ProducerState bob = scheduler.addProducer(2, "b", "bob", 1);
        ProducerState carol = scheduler.addProducer(3, "c", "carol", 1);
        long c = submitValidated();
        TaskId root = TaskId.root(c);
        scheduler.request(alice, 1, 1);
        scheduler.completed(alice, answer(root, (byte) 7));
        scheduler.request(bob, 1, 1);
        scheduler.removeProducer(bob);
        scheduler.request(carol, 1, 1);
        assertEquals("assign " + root + " -> c", out.log.get(out.log.size() - 1));
        scheduler.completed(carol, answer(root, (byte) 7));
        assertArrayEquals(new byte[] {7}, out.result);
    }

    @Test
    void aComputationWhoseTasksRunLongerInAllThanItsLimitFails() {
        scheduler.quotas(new UserQuotas(10, 1_000, 1L << 30, java.time.Duration.ofHours(1), java.time.Duration.ofHours(1),
                java.time.Duration.ofSeconds(1)));
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long c = scheduler.submissions().submit(consumer, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        scheduler.request(p, 1, 1);
        TaskId root = TaskId.root(c);
        TaskEnvelope child = task(root.child(0), Continuation.CONSUMER, 0, 0);
        scheduler.completed(p, new Completion(root, new TaskEnvelope[] {child}, new ValueEnvelope[0],
                java.time.Duration.ofMillis(600).toNanos()));
        scheduler.submissions().expire(now);
        assertFalse(out.log.contains("failed"), "0.6 s of task time is within the limit");
        scheduler.request(p, 1, 1);
        scheduler.completed(p, new Completion(child.id(), new TaskEnvelope[] {
                task(child.id().child(0), Continuation.CONSUMER, 0, 0)}, new ValueEnvelope[0],
                java.time.Duration.ofMillis(600).toNanos()));
        scheduler.submissions().expire(now);
        assertTrue(scheduler.submissions().collect(consumer, c));
        assertTrue(out.failure.contains("--computation-time-limit"), out.failure);
    }

    @Test
    void aProducerThatAsksForEverythingGetsNoMoreThanTheCreditCap() {
        ProducerState hoarder = scheduler.addProducer(1, "hoarder", 1);
        long c = scheduler.submissions().submit(consumer, task(TaskId.root(0), Continuation.CONSUMER, 0, 0), now);
        ProducerState p = scheduler.addProducer(2, "p", 1);
        scheduler.request(p, 1, 1);
        TaskId root = TaskId.root(c);
        List<TaskEnvelope> leaves = new ArrayList<>();
        for (int i = 0; i < 3 * Dispatcher.MAX_CREDIT; i++) {
            leaves.add(task(root.child(i), Continuation.CONSUMER, 0, 0));
        }
        scheduler.completed(p, completion(root, leaves, List.of()));
        scheduler.request(hoarder, Integer.MAX_VALUE, 1_000_000);
        assertEquals(Dispatcher.MAX_CREDIT, hoarder.heldCount(), "tasks the hoarder holds");
    }

    @Test
    void spawnOutsideTheTasksSubtreeIsRefused() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        TaskId root = submitToIdle(p);
        TaskId stranger = root.child(0).child(0); // a grandchild: not the root's to store
        scheduler.completed(p, completion(root, List.of(task(stranger, Continuation.CONSUMER, 0, 0)), List.of()));
        assertEquals(1, scheduler.counters().effectsRefused());
        assertEquals(0, scheduler.readyCount());
    }

    @Test
    void failedTaskFailsItsComputationOnly() {
        ProducerState p = scheduler.addProducer(1, "p", 2);
        long c1 = submitForkJoin();
        long c2 = submitForkJoin();
        scheduler.request(p, 2, 2);
        ProducerState stranger = scheduler.addProducer(9, "stranger", 1);
        scheduler.taskFailed(stranger, TaskId.root(c1), "not mine to fail", now);
        assertNull(out.failure, "a producer cannot fail a task it does not hold");
        scheduler.taskFailed(p, TaskId.root(c1), "boom", now);
        assertEquals(TaskId.root(c1) + ": boom", out.failure);
        assertNotNull(scheduler.summary(c2));
        scheduler.completed(p, completion(TaskId.root(c2), List.of(), List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {5}))));
        assertArrayEquals(new byte[] {5}, out.result);
    }

    /**
     * A large computation (its tasks take a second, so that it soon has used more than a second of each worker) has
     * a task running and one cached on each of two producers when a small one is submitted: the large one's cached
     * copies are asked back, neither computation's tasks go into a busy producer's cache any longer, and the small
     * one's first task goes to the first worker that frees. Two computations of little use side by side prefetch as
     * one does.
     */
    @Test
    void aSmallComputationBesideALargeOneGetsTheWorkersThatFreeFirst() {
        ProducerState a = scheduler.addProducer(1, "a", 1);
        ProducerState b = scheduler.addProducer(2, "b", 1);
        long large = submitForkJoin();
        TaskId root = TaskId.root(large);
        scheduler.request(a, 1, 1);
        List<TaskEnvelope> leaves = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            leaves.add(task(root.child(i), Continuation.CONSUMER, 0, 0));
        }
        scheduler.completed(a, new Completion(root, leaves.toArray(TaskEnvelope[]::new), new ValueEnvelope[0],
                1_000_000_000L));
        scheduler.request(a, 2, 1); // one to run, one to cache
        scheduler.request(b, 2, 1);
        assertEquals(4, a.heldCount() + b.heldCount());

        int logged = out.log.size();
        long small = submitForkJoin();
        List<String> said = out.log.subList(logged, out.log.size());
        assertEquals(2, said.stream().filter(line -> line.startsWith("revoke")).count(), said.toString());
        assertTrue(said.stream().noneMatch(line -> line.startsWith("assign")), "no cache gets it: " + said);
        TaskId cachedAtA = a.held.stream().filter(e -> e.revoke == TaskEntry.Revoke.REQUESTED).findFirst()
                .orElseThrow().envelope.id();
        scheduler.released(a, new TaskId[] {cachedAtA}); // a had not started it
        scheduler.request(a, 1, 0); // a's cache is empty again; its worker is still busy
        said = out.log.subList(logged, out.log.size());
        assertTrue(said.stream().noneMatch(line -> line.startsWith("assign")), "busy: nothing cached: " + said);

        TaskId runningAtA = a.held.iterator().next().envelope.id();
        scheduler.completed(a, new Completion(runningAtA, new TaskEnvelope[0], new ValueEnvelope[0],
                1_000_000_000L));
        scheduler.request(a, 0, 1); // its worker frees
        assertEquals("assign " + TaskId.root(small) + " -> a", out.log.get(out.log.size() - 1));

        setUp(); // two computations of little use: peers, prefetched as usual
        ProducerState p = scheduler.addProducer(1, "p", 1);
        submitForkJoin();
        submitForkJoin();
        scheduler.request(p, 2, 0);
        assertEquals(2, out.assigned.size(), "both go into the busy producer's cache");
    }

    @Test
    void resultWaitsForItsConsumerUntilItExpires() {
        ProducerState p = scheduler.addProducer(1, "p", 1);
        long c = submitForkJoin();
        scheduler.submissions().consumerGone(consumer);
        scheduler.request(p, 1, 1);
        scheduler.completed(p, completion(TaskId.root(c), List.of(), List.of(new ValueEnvelope(Continuation.CONSUMER, new byte[] {6}))));
        assertNull(out.result, "nobody to tell yet");
        ConsumerHandle later = () -> 2;
        assertTrue(scheduler.submissions().collect(later, c));
        assertArrayEquals(new byte[] {6}, out.result);
        assertEquals(0, scheduler.submissions().expire(now + 1));
        assertEquals(1, scheduler.submissions().expire(now + 60_000_000_001L));
        assertTrue(!scheduler.submissions().collect(later, c), "expired");
    }

    /**
     * A server may crash after its mirrors have the end of a computation (a cancellation) and before it tells the
     * other servers: the heir that adopts it tells them, or their tasks of it run on to the end. Likewise a
     * computation's new priority.
     */
    @Test
    void anHeirTellsEveryServerOfWhatTheServerItTookOverMayNotHaveTold() {
        Replica copy = new Replica();
        copy.offer(1, true, new org.cx.wire.MirrorOp[] {
            new org.cx.wire.MirrorOp.Started(9, now, "alice", 1, 0, 0),
            new org.cx.wire.MirrorOp.Started(10, now, "alice", 1, 0, 0),
            new org.cx.wire.MirrorOp.Started(11, now, "alice", 1, 0, 0),
            new org.cx.wire.MirrorOp.Reprioritized(11, 5),
            new org.cx.wire.MirrorOp.Finished(9, null, "", "cancelled by alice", 3, 3, 30, 100)});
        scheduler.replication().adopt(copy);
        assertEquals(List.of(9L), out.endedAtOrigin, "the cancelled one, not the running ones");
        assertEquals(List.of("11:5"), out.reprioritized, "a new priority too, as it may not have told it");
    }

    @Test
    void aConsumerAskingForAnUnknownComputationHearsOfTheNetworksLosses() {
        String plain = scheduler.submissions().unknown(0xabcL);
        assertTrue(plain.contains("no computation abc") && !plain.contains("lost"), plain);
        long c = submitForkJoin();
        scheduler.failAllRunning("task server s2 failed together with every copy of its tasks");
        assertTrue(out.log.contains("failed"), "running computations fail: " + out.log);
        String told = scheduler.submissions().unknown(c + 1);
        assertTrue(told.endsWith("; or lost: task server s2 failed together with every copy of its tasks"), told);
    }
}
