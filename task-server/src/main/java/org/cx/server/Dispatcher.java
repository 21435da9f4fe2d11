package org.cx.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.LongFunction;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.ValueRef;

/**
 * Who gets which ready task, and who gives one back: the {@link Scheduler}'s dispatch policy with the state only it
 * uses (prefetched copies it may revoke, revokes not answered yet, idle workers next door, tasks of validated
 * computations that wait for another owner's opinion). Single-threaded like the scheduler, and called only by it;
 * time is passed in. Near 600 lines because every way a producer comes to hold a task (assigned, prefetched,
 * claimed, cached by itself, copied when late, sent where its large inputs are) and every way it stops holding one is
 * here, beside the state they share.
 */
final class Dispatcher {
    /**
     * Tasks one producer may hold at once, beyond one per worker: an honest producer caches at most 256
     * ({@code ProducerConfig.maxCached}); one that asks for more only hoards tasks others could run.
     */
    static final int MAX_CREDIT = 1024;

    /** At most this many producers keep a copy of one task (each costs a message per input). */
    static final int MAX_KEEPERS = 4;

    /** A computation is large beside another when it has used this much more of each worker here, recently. */
    static final long LARGE_USE_PER_WORKER_NANOS = 1_000_000_000L;

    private final Outbox outbox;
    private final ReadyQueues ready;
    private final ProducerDemand demand;
    private final LateTasks late;
    private final SchedulerCounters counters;
    /** A computation by id, or null. */
    private final LongFunction<ComputationState> computations;
    /** Whether the tasks of a home server (by id) live on this server now. */
    private final IntPredicate livesHere;

    /** Tasks whose only copies were prefetched and that were not asked about yet, oldest first. */
    private final LinkedHashSet<TaskEntry> revocable = new LinkedHashSet<>();
    private int revokesOutstanding;
    /** Copies were prefetched since the last {@link #revokeOwedLess} sweep, which asked back those of this one. */
    private boolean prefetchedSinceSweep;
    /** The computation that sweep favoured: a newly favoured one sweeps again. */
    private long lastFavoured;
    private long largeUsePerWorkerNanos = LARGE_USE_PER_WORKER_NANOS;
    /** Validated tasks with a result that waits for another owner's ({@link TaskEntry#opinions}), oldest first. */
    private final LinkedHashSet<TaskEntry> awaitingOpinion = new LinkedHashSet<>();
    /** Idle workers at neighbouring servers with no task to give them: fresh tasks here are kept for diffusion. */
    private int remoteIdle;
    /** Called before fresh tasks go to producers here while neighbours have idle workers (diffusion's seeding). */
    private Runnable seeder = () -> { };
    private long now;

    Dispatcher(Outbox outbox, ReadyQueues ready, ProducerDemand demand, LateTasks late, SchedulerCounters counters,
               LongFunction<ComputationState> computations, IntPredicate livesHere) {
        this.outbox = outbox;
        this.ready = ready;
        this.demand = demand;
        this.late = late;
        this.counters = counters;
        this.computations = computations;
        this.livesHere = livesHere;
    }

    void tick(long nowNanos) {
        now = nowNanos;
    }

    static int maxCredit(ProducerState p) {
        return Math.max(MAX_CREDIT, 2 * p.workers);
    }

    /** Sets how much more recent use per worker makes a computation large beside another (see {@link #prefetch}). */
    void largeUsePerWorker(long nanos) {
        largeUsePerWorkerNanos = nanos;
    }

    void setSeeder(Runnable seeder) {
        this.seeder = seeder;
    }

    /**
     * Hands ready tasks to hungry producers, in four steps:
     * <ol>
     *   <li>fresh tasks (no holder) to producers with idle workers, round robin;</li>
     *   <li>fresh tasks to prefetch credit, round robin;</li>
     *   <li>if idle workers remain, ask holders of prefetched copies to give up those they have not started
     *       (revoke): a released task is fresh again and goes to an idle worker in step 1 when the answer arrives.
     *       A task handed to an idle worker starts at once and is never revoked;</li>
     *   <li>with {@code eager}: an idle worker gets a copy of a task another producer is running, but only once that
     *       task is late (running longer than {@link LateTasks#latenessNanos}), so that duplicates chase
     *       stragglers and lost producers instead of tying up workers that new tasks will soon need.</li>
     * </ol>
     * Tasks of validated computations awaiting an opinion go first: the computation waits for them.
     */
    void dispatch(boolean eager) {
        if (remoteIdle > 0 && ready.freshCount() > 0) {
            seeder.run();
        }
        if (demand.hungry.isEmpty()) {
            if (remoteIdle == 0 && ready.computationCount() > 1) {
                favouredWaits(); // its tasks may be waiting behind prefetched copies
            }
            return;
        }
        giveOpinions();
        if (ready.isEmpty()) {
            return;
        }
        giveFresh(demand.hungryIdle, false);
        if (demand.idleWaiting() == 0) {
            if (remoteIdle == 0) {
                prefetch(); // only once no worker here or next door is waiting
            }
            return;
        }
        if (!ready.isEmpty()) {
            revokeUnstarted(demand.idleWaiting() - revokesOutstanding);
            if (eager) {
                giveLateCopies();
            }
        }
    }

    /**
     * Hands fresh tasks (no holder) to the producers of {@code queue}, one at a time in round-robin order, while
     * both last; a task whose large inputs a producer of the queue holds goes to that one instead. Each step is
     * O(log n): the served producer leaves the queue, and {@link ProducerDemand#set} (called by {@link #assign}) puts
     * it back at the end if it still wants more.
     */
    private void giveFresh(LinkedHashSet<ProducerState> queue, boolean prefetch) {
        giveFresh(queue, prefetch, top -> true);
    }

    /** As {@link #giveFresh(LinkedHashSet, boolean)}, while the next fresh task is one that {@code goes}. */
    private void giveFresh(LinkedHashSet<ProducerState> queue, boolean prefetch,
                           java.util.function.Predicate<TaskEntry> goes) {
        while (!queue.isEmpty()) {
            TaskEntry top = ready.peek();
            if (top == null || top.holderCount() > 0 || !goes.test(top)) {
                return;
            }
            ProducerState p = holderIfFree(top, queue, prefetch);
            if (p == null) {
                p = queue.iterator().next();
            }
            queue.remove(p);
            top.dataAt = null;
            assign(p, top, prefetch);
        }
    }

    /**
     * The producer that holds the inputs of {@code target}, made ready by {@code last} from {@code from}, that travel
     * by reference, or null if none does: a keeper holds them all (it made them, or was sent them with its copy or
     * since), else the maker of the last one holds that one.
     */
    static ProducerState holderOfInputs(TaskEntry target, ValueEnvelope last, ProducerState from) {
        if (!target.hasInputByReference()) {
            return null;
        }
        if (from != null && target.keptBy(from)) {
            return from;
        }
        ProducerState[] keepers = target.keepers();
        if (keepers.length > 0) {
            return keepers[0];
        }
        return ValueRef.is(last.value()) ? from : null;
    }

    /**
     * The producer that holds {@code e}'s large inputs ({@link TaskEntry#dataAt}) if it may take {@code e} now, else
     * null: it is in {@code queue}, or, for an idle worker, it asked for tasks and holds fewer than it has open
     * workers. Its request saying so may still be on its way, behind the completion that made {@code e} ready and
     * the value it sent ahead of it.
     */
    private ProducerState holderIfFree(TaskEntry e, LinkedHashSet<ProducerState> queue, boolean prefetch) {
        ProducerState at = e.dataAt;
        if (at == null || queue.contains(at)) {
            return at;
        }
        if (prefetch) {
            return null;
        }
        boolean idleWorker = demand.hungry.contains(at) && at.held.size() < Math.min(at.workers, at.openWorkers);
        return idleWorker ? at : null;
    }

    /**
     * Hands fresh tasks to prefetch credit, where they wait in a busy producer's cache behind the task it runs, unless
     * {@linkplain #favouredWaits a favoured computation} needs the caches empty.
     */
    private void prefetch() {
        if (ready.computationCount() > 1 && favouredWaits()) {
            prefetchFavouredBacklog();
            return;
        }
        giveFresh(demand.hungry, true);
    }

    /**
     * Beside a favoured computation, its own tasks (and those of others it is owed as much as) still go to prefetch
     * credit while more of them are ready than producers ask for: they would wait for a worker anyway, and a cached one
     * spares that worker the round trip.
     */
    private void prefetchFavouredBacklog() {
        double margin = largeUse();
        if (ready.freshOwedMoreThan(demand.hungry.size(), margin)) {
            giveFresh(demand.hungry, true, top -> ready.owedMoreThanAny(top.computation, margin));
        }
    }

    /**
     * Whether prefetch must wait for a favoured computation: one that fair share clearly favours (typically a small
     * computation submitted beside a large one, see {@link ReadyQueues#owedMoreThan}) and that has tasks here. Its
     * tasks would wait a whole task behind whatever a busy producer runs, and the others' would fill the caches that
     * the workers freeing first take their next task from; so nothing is prefetched, and the prefetched copies of the
     * computations it is owed more than are asked back while it has a task waiting. A worker that frees then finds
     * its cache empty and asks, and gets the favoured computation's next task a round trip later; the others pay
     * that round trip per task meanwhile.
     */
    private boolean favouredWaits() {
        TaskEntry top = ready.peek();
        if (top == null) {
            return false;
        }
        long computation = top.computation;
        double margin = largeUse();
        if (ready.owedMoreThanAny(computation, margin)) {
            if (prefetchedSinceSweep || computation != lastFavoured) {
                revokeOwedLess(computation, margin);
                prefetchedSinceSweep = false;
                lastFavoured = computation;
            }
            return true;
        }
        return ready.anyOwedMoreThan(computation, margin);
    }

    /**
     * How much more recent use makes a computation clearly owed less than another: about a second of every worker
     * here, so that small computations side by side are peers and only a large one gives way.
     */
    private double largeUse() {
        return (double) Math.max(1, demand.workers()) * largeUsePerWorkerNanos;
    }

    /**
     * Asks the holders of every prefetched copy of a computation that {@code favoured} is clearly owed more than to
     * give up those they have not started: the workers that free next would take them before anything the favoured
     * computation needs.
     */
    private void revokeOwedLess(long favoured, double margin) {
        Map<ProducerState, List<TaskId>> asks = new LinkedHashMap<>();
        for (Iterator<TaskEntry> it = revocable.iterator(); it.hasNext(); ) {
            TaskEntry e = it.next();
            long other = e.computation;
            if (other != favoured && ready.owedMoreThan(favoured, other, margin)) {
                it.remove();
                asks.computeIfAbsent(e.holder(0), h -> new ArrayList<>()).add(requestRevoke(e));
            }
        }
        for (Map.Entry<ProducerState, List<TaskId>> ask : asks.entrySet()) {
            revoke(ask.getKey(), ask.getValue().toArray(TaskId[]::new));
        }
    }

    /**
     * Asks holders of up to {@code wanted} prefetched copies to give up those they have not started, oldest
     * prefetch first (it has waited longest behind a running task). O(1) per revoke.
     */
    private void revokeUnstarted(int wanted) {
        if (wanted <= 0 || revocable.isEmpty()) {
            return;
        }
        Map<ProducerState, List<TaskId>> asks = new LinkedHashMap<>();
        for (Iterator<TaskEntry> it = revocable.iterator(); it.hasNext() && wanted > 0; wanted--) {
            TaskEntry e = it.next();
            it.remove();
            // One release makes the task fresh: ask its first holder only.
            asks.computeIfAbsent(e.holder(0), h -> new ArrayList<>()).add(requestRevoke(e));
        }
        for (Map.Entry<ProducerState, List<TaskId>> ask : asks.entrySet()) {
            revoke(ask.getKey(), ask.getValue().toArray(TaskId[]::new));
        }
    }

    /** Marks {@code e} (already out of {@link #revocable}) as asked for; returns its id. */
    private TaskId requestRevoke(TaskEntry e) {
        e.revoke = TaskEntry.Revoke.REQUESTED;
        revokesOutstanding++;
        counters.revokesSent++;
        return e.envelope.id();
    }

    private void revoke(ProducerState holder, TaskId[] ids) {
        holder.pendingRevokes.add(ids);
        outbox.revoke(holder, ids);
    }

    /**
     * Gives each producer with an idle worker a copy of the oldest late task it does not hold, one copy per task
     * each time it is late. Walks only the tasks running longer than {@link LateTasks#MIN_LATENESS_NANOS}.
     */
    private void giveLateCopies() {
        if (!late.anyLate(now)) {
            return;
        }
        for (ProducerState p : new ArrayList<>(demand.hungryIdle)) {
            TaskEntry copy = late.lateFor(p, now);
            if (copy != null) {
                counters.eagerReassignments++;
                assign(p, copy, false);
                late.copied(copy, now); // late again only if the copy, too, runs that long
            }
        }
    }

    /**
     * {@code p} put a ready child of the task it completed in its own cache ({@code e}: its entry, or null if it was
     * not stored, and then {@code p} is told to drop it): it holds it as if given on prefetch credit, which it counts
     * as used. If a worker here or next door waits for a task, or nothing may be prefetched now (a favoured
     * computation waits), it is asked back at once; {@code p} may have started it already (its worker frees after the
     * task it claimed), and then keeps it.
     */
    void cachedHere(ProducerState p, TaskEntry e, TaskId id) {
        if (e == null || e.heapIndex < 0 || e.holderCount() > 0 || e.revoke != TaskEntry.Revoke.NONE) {
            cachedChildNotStored(p, id, false);
            return;
        }
        give(p, e, true);
        counters.tasksCachedHere++;
        if (demand.idleWaiting() > revokesOutstanding || remoteIdle > 0
                || (ready.computationCount() > 1 && favouredWaits())) {
            revocable.remove(e);
            revoke(p, new TaskId[] {requestRevoke(e)});
        }
    }

    /**
     * {@code p} cached child {@code id} of a completion that stored nothing: its credit counts it as used, and it is
     * told to drop it unless {@code givenSince} (it holds that task as given by this server, in one copy).
     */
    void cachedChildNotStored(ProducerState p, TaskId id, boolean givenSince) {
        demand.set(p, Math.max(0, p.credit - 1), p.idleWorkers);
        if (!givenSince) {
            outbox.drop(p, id);
        }
        counters.cachedHereDropped++;
    }

    /** @param prefetch given on prefetch credit (may wait behind a running task) rather than to an idle worker */
    private void assign(ProducerState p, TaskEntry e, boolean prefetch) {
        give(p, e, prefetch);
        outbox.assign(p, e.toReadyTask());
        keepSuccessor(p, e);
    }

    /** Records {@code p} as a holder of {@code e}, given on prefetch credit or to an idle worker. */
    private void give(ProducerState p, TaskEntry e, boolean prefetch) {
        if (e.holderCount() == 0) {
            e.prefetched = prefetch;
            if (prefetch && e.revoke == TaskEntry.Revoke.NONE) {
                revocable.add(e);
                prefetchedSinceSweep = true;
            }
        }
        if (!prefetch) {
            late.started(e, now);
            revocable.remove(e); // an idle worker has it now: it starts at once
        }
        e.addHolder(p);
        ready.update(e);
        ready.used(e);
        p.held.add(e);
        demand.set(p, Math.max(0, p.credit - 1), Math.max(0, p.idleWorkers - 1));
        p.tasksAssigned++;
        counters.tasksAssigned++;
    }

    /**
     * The producer that completed a task is already running one of its ready children, or the task its value just
     * made ready (it claimed it): record it as that task's holder, as if assigned to an idle worker, without
     * sending it.
     */
    void claim(ProducerState p, TaskEntry e) {
        late.started(e, now);
        revocable.remove(e);
        e.prefetched = false;
        e.addHolder(p);
        ready.update(e);
        ready.used(e);
        p.held.add(e);
        counters.tasksClaimed++;
        keepSuccessor(p, e);
    }

    /**
     * {@code p} now holds task {@code e}: if {@code e}'s successor lives here and waits for inputs, {@code p}
     * keeps a copy of it, so that if {@code e}'s value is the last one missing, {@code p} runs the successor at
     * once instead of waiting for the server to hand it out (a round trip per composition level of F(n)).
     */
    private void keepSuccessor(ProducerState p, TaskEntry e) {
        Continuation to = e.envelope.continuation();
        if (to.isConsumer() || !livesHere.test(e.home)) {
            return;
        }
        ComputationState c = computations.apply(to.target().computation());
        TaskEntry successor = c == null || c.quorum > 1 ? null : c.target(to.target(), e);
        if (successor == null || successor.isReady() || !Completion.keepable(successor.envelope)
                || successor.keepers().length >= MAX_KEEPERS || !successor.addKeeper(p)) {
            return;
        }
        byte[][] inputs = successor.inputs();
        List<ValueEnvelope> known = new ArrayList<>(inputs.length);
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i] != null) {
                known.add(new ValueEnvelope(Continuation.to(successor.envelope.id(), i), inputs[i]));
            }
        }
        outbox.keep(p, successor.envelope, known.toArray(ValueEnvelope[]::new));
        counters.successorsKept++;
    }

    /** {@code e} waits for a producer of an owner that has not run it yet (unless a holder is running it). */
    void awaitOpinion(TaskEntry e) {
        if (e.holderCount() == 0) {
            awaitingOpinion.add(e);
        }
    }

    /** Enough producers agreed on {@code e}'s result: it waits for no other. */
    void opinionsAgreed(TaskEntry e) {
        awaitingOpinion.remove(e);
    }

    /**
     * Gives each hungry producer the oldest validated task awaiting an opinion that no producer of its owner has
     * run.
     */
    private void giveOpinions() {
        if (awaitingOpinion.isEmpty()) {
            return;
        }
        for (ProducerState p : new ArrayList<>(demand.hungry)) {
            for (Iterator<TaskEntry> it = awaitingOpinion.iterator(); it.hasNext(); ) {
                TaskEntry e = it.next();
                ComputationState c = computations.apply(e.computation);
                if (c == null || c.tasks.get(e.envelope.id()) != e || e.opinions == null) {
                    it.remove(); // its computation ended, or it applied meanwhile
                    continue;
                }
                if (!e.opinions.heardFrom(p.owner)) {
                    it.remove();
                    assign(p, e, false);
                    break;
                }
            }
            if (awaitingOpinion.isEmpty()) {
                return;
            }
        }
    }

    /** One holder less for {@code e}: with none left it is fresh for the others. */
    void letGo(TaskEntry e) {
        if (e.holderCount() == 0) {
            e.revoke = TaskEntry.Revoke.NONE;
            late.stopped(e);
            revocable.remove(e);
            if (e.opinions != null) {
                awaitingOpinion.add(e); // its second opinion must come from someone else
            }
        }
        ready.update(e);
    }

    /**
     * {@code e} leaves the ready tasks (it applied, its computation ended, or it waits for opinions); {@code stopped}:
     * no producer runs it any longer. A revoke of it not answered yet no longer counts.
     */
    void withdraw(TaskEntry e, boolean stopped) {
        ready.remove(e);
        revocable.remove(e);
        if (stopped) {
            late.gone(e);
        }
        revokeVoid(e);
    }

    /** A revoke asked of {@code e}'s holder will not be answered for it: {@code e} may be asked about again. */
    void revokeVoid(TaskEntry e) {
        if (e.revoke == TaskEntry.Revoke.REQUESTED) {
            e.revoke = TaskEntry.Revoke.NONE;
            revokesOutstanding--;
        }
    }

    /** Producer {@code p} left: the revokes it will never answer no longer count. */
    void producerLeft(ProducerState p) {
        for (TaskId[] asked : p.pendingRevokes) {
            for (TaskId id : asked) {
                ComputationState c = computations.apply(id.computation());
                TaskEntry e = c == null ? null : c.tasks.get(id);
                if (e != null) {
                    revokeVoid(e);
                }
            }
        }
        p.pendingRevokes.clear();
    }

    /** {@code p} gave {@code e} back unasked: a revoke of it that {@code p} has yet to answer no longer counts. */
    void givenBack(ProducerState p, TaskEntry e) {
        TaskId id = e.envelope.id();
        if (e.revoke == TaskEntry.Revoke.REQUESTED && p.pendingRevokes.stream().anyMatch(
                asked -> java.util.Arrays.asList(asked).contains(id))) {
            revokeVoid(e); // p's answer to that revoke will not name it
        }
        letGo(e);
    }

    /**
     * {@code p} answers its oldest unanswered revoke: {@code ids} were dropped unstarted and are fresh again; the
     * rest of that revoke it had already started, and they are not asked for again.
     */
    void released(ProducerState p, TaskId[] ids) {
        TaskId[] asked = p.pendingRevokes.poll();
        if (asked == null) {
            return;
        }
        Set<TaskId> dropped = new HashSet<>(Arrays.asList(ids)); // a producer may name one twice
        for (TaskId id : asked) {
            ComputationState c = computations.apply(id.computation());
            TaskEntry e = c == null ? null : c.tasks.get(id);
            if (e == null || e.revoke != TaskEntry.Revoke.REQUESTED) {
                continue;
            }
            revokesOutstanding--;
            if (dropped.contains(id) && e.removeHolder(p)) {
                p.held.remove(e);
                e.revoke = TaskEntry.Revoke.NONE;
                if (e.holderCount() == 0) {
                    late.stopped(e);
                }
                ready.update(e);
                counters.tasksReleased++;
            } else {
                e.revoke = TaskEntry.Revoke.REFUSED;
                late.started(e, now); // it had started by now
            }
        }
    }

    /**
     * Neighbouring servers report this many idle workers they have no task for (see {@link #dispatch}). Fresh tasks
     * go to them (diffusion); if there are too few, prefetched copies that producers here have not started are
     * revoked, so that they become fresh and can go too: otherwise the end of a computation waits on tasks queued
     * behind running ones here while workers next door have nothing. Returns whether to dispatch now (the neighbours
     * need nothing any longer: what was kept for them may go to producers here).
     */
    boolean setRemoteIdle(int idle) {
        boolean released = idle == 0 && remoteIdle > 0;
        remoteIdle = idle;
        if (!released && idle > 0) {
            revokeForRemoteIdle();
        }
        return released;
    }

    /**
     * Asks for as many unstarted prefetched copies as idle workers here and next door lack fresh tasks. The server
     * cannot tell which prefetched copies have started since (a producer starts one whenever its running task ends),
     * so revokes are refused now and then; each answer asks again for what is still missing (the neighbours report
     * again only when their need changes).
     */
    void revokeForRemoteIdle() {
        if (remoteIdle > 0) {
            revokeUnstarted(remoteIdle + demand.idleWaiting() - ready.freshCount() - revokesOutstanding);
        }
    }

    /** Prefetched copies no producer has started, as far as this server knows: what it could revoke. */
    int queuedCount() {
        return revocable.size();
    }
}
