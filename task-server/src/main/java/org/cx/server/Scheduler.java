package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;
import java.util.function.IntUnaryOperator;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.ValueRef;

/**
 * The scheduling state of one task server (paper §4.1) as a single-threaded state machine: every method is a
 * command, applied whole, and answers through the {@link Outbox}. Time is passed in. See the package docs for the
 * invariants it keeps.
 *
 * <p>This class applies what producers and other servers report: a completion, for one, stores children and values,
 * records claims and kept copies, removes the task from every holder, charges its user and records the mirror
 * operations, and the invariants hold only if all of that happens in one step over the same maps. Its parts work on
 * those maps in the same thread: {@link Submissions} (the consumers' commands at a computation's origin),
 * {@link Dispatcher} (who gets which ready task, revokes), {@link DiffusionSource} (tasks to and from neighbours)
 * and {@link Replication} (what mirrors and heirs need); rules of their own are in {@link ReadyQueues},
 * {@link ProducerDemand}, {@link LateTasks}, {@link TaskEntry}, {@link ComputationState} and {@link UserLedger}.
 * What stays here (about 1,020 lines) is the producers' and other servers' commands with what they share (storing
 * a task or a value and naming who reads it, failing and ending a computation): split further, each part would reach
 * into the others' maps.
 */
public final class Scheduler {
    /** A value this large is counted against its user's quota at once (smaller ones with the next stored tasks). */
    private static final int CHARGE_AT_ONCE_BYTES = 64 << 10;
    private static final long[] NO_PEERS = {};
    /** How many forgotten computations are remembered. */
    static final int FORGOTTEN_REMEMBERED = 100_000;

    final Outbox outbox;
    final UserLedger users = new UserLedger();
    final Map<Long, ComputationState> computations = new HashMap<>();
    private final Map<Long, ProducerState> producers = new HashMap<>();
    final ReadyQueues ready = new ReadyQueues(computations::get);
    private final ProducerDemand demand = new ProducerDemand();
    final LateTasks late = new LateTasks();
    final SchedulerCounters counters = new SchedulerCounters();
    private final EffectAudit audit;
    private final Dispatcher dispatcher;
    private final Submissions submissions;
    private final DiffusionSource diffusion;
    private final Replication replication;
    private long seq;
    /** What a ready task may take with its inputs: the largest message, less room for its other fields. */
    private final long maxReadyTaskBytes = org.cx.wire.WireConfig.maxMessageBytes() - 4096L;
    /**
     * Computations that ended and were forgotten here, most recent last, so that tasks of theirs still on their way
     * (a transfer sent before the end) do not bring them back to life.
     */
    private final LinkedHashSet<Long> forgotten = new LinkedHashSet<>();
    private java.util.function.LongConsumer onForget = id -> { };
    /** Ready tasks too large to send anywhere; their computations fail at the next dispatch. */
    private final List<TaskEntry> oversized = new ArrayList<>();
    /** Told of each result a quorum contradicted, and of the task. */
    private java.util.function.BiConsumer<Opinions.Opinion, TaskId> dissenter = (o, id) -> { };
    /** Set by {@link #tick} before each command: time is passed in, never read. */
    private long now;
    /** Meters executions for the accounting service; null unless asked for. */
    UsageMeter meter;
    /** Users whose weight counts twice ({@link #favour}). */
    private Set<String> favoured = Set.of();
    /** This server's id in the production network (1 when it stands alone). */
    private int self = 1;
    /** Where a server's tasks live now: itself, or the server that took over from it after it failed. */
    private IntUnaryOperator resolve = IntUnaryOperator.identity();
    StateLog log = StateLog.NONE;

    /**
     * @param resultRetentionNanos how long a finished computation's result waits for its consumer
     * @param ids                  draws computation ids (a {@code SecureRandom}: an id must not be guessable)
     * @param audit                records applied effects per task id (tests), or null
     */
    public Scheduler(Outbox outbox, long resultRetentionNanos, RandomGenerator ids, EffectAudit audit) {
        this.outbox = outbox;
        this.audit = audit;
        this.dispatcher = new Dispatcher(outbox, ready, demand, late, counters, computations::get,
                home -> resolve.applyAsInt(home) == self);
        this.submissions = new Submissions(this, ids, resultRetentionNanos);
        this.diffusion = new DiffusionSource(this);
        this.replication = new Replication(this);
    }

    /** The consumers' commands for the computations submitted here. */
    public Submissions submissions() {
        return submissions;
    }

    /** Who gets which ready task. */
    Dispatcher dispatcher() {
        return dispatcher;
    }

    /** The tasks this server gives to and takes from its neighbours. */
    public DiffusionSource diffusion() {
        return diffusion;
    }

    /** What this server's mirrors and heirs need beyond each command's changes. */
    public Replication replication() {
        return replication;
    }

    /** What one user may hold here, and each user's share. */
    void quotas(UserQuotas userQuotas) {
        users.quotas(userQuotas);
        weigh();
    }

    /**
     * Favours the computations of {@code users} (users in credit, as the accounting service says): their weight
     * counts twice. Replaces the last set.
     */
    public void favour(Set<String> users) {
        favoured = Set.copyOf(users);
        weigh();
    }

    private void weigh() {
        UserQuotas q = users.quotas();
        Set<String> f = favoured;
        ready.weights(f.isEmpty() ? q::weight : user -> q.weight(user) * (f.contains(user) ? 2 : 1));
    }

    /**
     * Counts {@code c}'s stored tasks against its user's quota; fails it, saying why, if the user now holds more
     * than the quota here. Called after each change that can store many tasks at once.
     */
    void charge(ComputationState c) {
        if (c.phase == ComputationState.Phase.RUNNING) {
            String over = users.charge(c);
            if (over != null) {
                fail(c, "", over, now);
            }
        }
    }

    public SchedulerCounters counters() {
        return counters;
    }

    /** Joins the scheduler to a production network: its id, how to find live servers, where changes are mirrored. */
    void attach(int selfId, IntUnaryOperator resolveServer, StateLog stateLog) {
        this.self = selfId;
        this.resolve = resolveServer;
        this.log = stateLog;
    }

    int self() {
        return self;
    }

    long now() {
        return now;
    }

    // ---------------------------------------------------------------- computations

    /** Computation {@code computation}'s origin gave it a new priority. */
    public void prioritizedElsewhere(long computation, int priority) {
        ComputationState c = computations.get(computation);
        if (c != null && c.phase == ComputationState.Phase.RUNNING) {
            reprioritize(c, priority);
            dispatch();
        }
    }

    void reprioritize(ComputationState c, int priority) {
        c.priority = priority;
        ready.reprioritized(c.id);
    }


    /** Calls {@code action} with each computation that is over and gone from here. */
    public void onForget(java.util.function.LongConsumer action) {
        this.onForget = action;
    }

    /** Whether computation {@code id} is here: running, or finished and its result kept. */
    public boolean knows(long id) {
        return computations.containsKey(id);
    }

    /** Forgets {@code c}, which is over, here and on the mirrors. */
    void forget(ComputationState c) {
        computations.remove(c.id);
        remember(c.id);
        if (log.active()) {
            log.record(new MirrorOp.Forget(c.id));
        }
    }

    /** Remembers that {@code id} is over and gone from here (the oldest such memory goes beyond the bound). */
    private void remember(long id) {
        onForget.accept(id);
        forgotten.add(id);
        if (forgotten.size() > FORGOTTEN_REMEMBERED) {
            forgotten.remove(forgotten.iterator().next());
        }
    }

    // ---------------------------------------------------------------- producers

    public ProducerState addProducer(long peerId, String name, int workers) {
        return addProducer(peerId, name, name, workers);
    }

    /**
     * A producer joins; {@code owner} answers for its results (validated computations compare owners). It hears of
     * every computation that runs here, as producers here heard of each when it started.
     */
    public ProducerState addProducer(long peerId, String name, String owner, int workers) {
        ProducerState p = new ProducerState(peerId, name, owner, workers);
        producers.put(peerId, p);
        demand.joined(p);
        computations.values().stream().filter(c -> c.phase == ComputationState.Phase.RUNNING)
                .forEach(c -> outbox.computationRuns(p, c.id));
        if (meter != null) {
            meter.joined(p, now);
        }
        return p;
    }

    /**
     * Meters producers' executions from now on, for the accounting service ({@link #drainUsage}); null stops, and
     * what was metered and not drained is dropped.
     */
    public void meterUsage(java.util.function.LongSupplier wallMillis) {
        meter = wallMillis == null ? null : new UsageMeter(wallMillis);
        if (meter != null) {
            producers.values().forEach(p -> meter.joined(p, now));
        }
    }

    /** The usage metered since the last call (none unless {@link #meterUsage} was called). */
    public List<org.cx.wire.Usage> drainUsage(long nowNanos) {
        return meter == null ? List.of() : meter.drain(nowNanos);
    }

    /** A producer left (crash, disconnect): what it held becomes fresh for the others. */
    public void removeProducer(ProducerState p) {
        producers.remove(p.peerId);
        demand.left(p);
        if (meter != null) {
            meter.left(p, now);
        }
        dispatcher.producerLeft(p); // revokes it will never answer: those tasks may be asked of others again
        List<TaskEntry> held = new ArrayList<>(p.held);
        held.sort(java.util.Comparator.comparingLong(e -> e.seq)); // a repeatable order (a simulation replays it)
        for (TaskEntry e : held) {
            e.removeHolder(p);
            dispatcher.letGo(e);
        }
        counters.tasksReleased += p.held.size();
        p.held.clear();
        dispatch();
    }

    /**
     * {@code p} holds {@code ids} no longer, unasked (it is stopping, or its owner paused it): each is fresh for the
     * others once no one else holds it. A revoke of one of them that {@code p} has yet to answer no longer counts.
     */
    public void givenBack(ProducerState p, TaskId[] ids) {
        for (TaskId id : ids) {
            ComputationState c = computations.get(id.computation());
            TaskEntry e = c == null ? null : c.tasks.get(id);
            if (e == null || !e.removeHolder(p)) {
                continue;
            }
            p.held.remove(e);
            dispatcher.givenBack(p, e);
            counters.tasksReleased++;
        }
        dispatch();
    }

    /**
     * A producer asks for {@code credit} more tasks, or withdraws credit if negative (never below none: tasks
     * assigned meanwhile have used some); {@code idleWorkers} of its workers have nothing to run.
     */
    public void request(ProducerState p, int credit, int idleWorkers) {
        long asked = Math.max(0L, (long) p.credit + credit);
        demand.set(p, (int) Math.min(asked, Dispatcher.maxCredit(p)), Math.min(idleWorkers, p.workers));
        dispatch();
    }

    /** {@code p}'s owner's rules let {@code open} of its workers take tasks now (-1: it did not say). */
    public void offering(ProducerState p, int open) {
        int n = Math.min(open, p.workers);
        if (open < 0 || n == p.openWorkers) {
            return;
        }
        if (meter != null) {
            meter.opening(p, now);
        }
        p.openWorkers = n;
    }

    /**
     * {@code p} answers its oldest unanswered revoke: {@code ids} were dropped unstarted and are fresh again; the
     * rest of that revoke it had already started, and they are not asked for again.
     */
    public void released(ProducerState p, TaskId[] ids) {
        dispatcher.released(p, ids);
        dispatch();
        dispatcher.revokeForRemoteIdle(); // at once: the neighbours report again only when their need changes
    }

    /** Applies one completion reported by {@code p} (null for a task run on the server). */
    public void completed(ProducerState p, Completion completion) {
        counters.completionsReceived++;
        ComputationState c = computations.get(completion.id().computation());
        TaskEntry e = c == null ? null : c.tasks.get(completion.id());
        if (e != null && e.isReady() && p != null && !e.heldBy(p)) {
            // Only a holder may complete a task: a completion for a task this producer was never given is refused,
            // and not counted as an execution. It may be of a task claimed on a completion that came second: what
            // the producer holds of its effects goes too, or the chain of its claims would run on.
            counters.completionsRefused++;
            discardHeldEffects(p, completion);
            return;
        }
        if (audit != null) {
            audit.executed(completion.id());
        }
        if (c != null) {
            c.executed();
            replication.tallied(c);
        }
        if (meter != null && p != null) {
            // With a quorum, every execution it counts is one the consumer asked for.
            boolean accepted = e != null && e.isReady();
            meter.executed(c, p, completion, accepted ? e.bytes() : 0, accepted, now);
        }
        if (e != null && e.isReady() && c.quorum > 1 && p != null) {
            completion = completion.effectsOnly(); // nobody claims or keeps a validated computation's tasks
            if (!validated(c, e, p, completion.effectsDigest())) {
                dispatch();
                return;
            }
        }
        if (e == null || !e.isReady()) {
            counters.duplicatesDiscarded++;
            if (p != null) {
                discardHeldEffects(p, completion);
            }
            return;
        }
        // Apply the task's effects and its completion as one step.
        if (audit != null) {
            audit.applied(completion.id());
        }
        c.forget(e);
        c.storedBytes -= e.bytes();
        if (log.active()) {
            log.record(new MirrorOp.Remove(e.envelope.id()));
        }
        outbox.applied(completion.id()); // after the change is recorded: it commits with the batch that carries it
        List<ValueRef> consumed = e.valueRefs();
        if (!consumed.isEmpty()) {
            outbox.valuesConsumed(consumed);
        }
        dispatcher.withdraw(e, true);
        late.completed(e, completion.execNanos(), now);
        for (int i = 0; i < e.holderCount(); i++) {
            ProducerState holder = e.holder(i);
            holder.held.remove(e);
            if (holder != p) {
                outbox.drop(holder, e.envelope.id());
            }
        }
        if (p != null) {
            p.tasksCompleted++;
        }
        c.completed(completion.execNanos());
        counters.tasksCompleted++;
        counters.execNanosApplied += completion.execNanos();
        TaskEnvelope[] spawned = completion.spawned();
        for (int i = 0; i < spawned.length; i++) {
            if (!spawned[i].id().isChildOf(completion.id())) {
                counters.effectsRefused++; // a producer may only store children of the task it ran
                continue;
            }
            TaskEntry child = store(c, spawned[i], homeOf(spawned[i].continuation(), e), null, "spawned");
            if (child != null) {
                child.spawnedHere = true;
            }
            if (audit != null) {
                audit.edge(completion.id(), spawned[i].id());
            }
            if (i == completion.claimed() && p != null && child != null && child.heapIndex >= 0) {
                dispatcher.claim(p, child);
            }
            if (i == completion.cachedHere() && p != null) {
                dispatcher.cachedHere(p, child, spawned[i].id());
            }
            if (completion.keeps() && p != null && Completion.keepable(spawned[i])) {
                if (child != null && !child.isReady()) {
                    child.addKeeper(p); // it has the copy already
                } else {
                    outbox.unkeep(p, spawned[i].id());
                }
            }
        }
        ValueEnvelope[] values = completion.values();
        for (int i = 0; i < values.length; i++) {
            ValueEnvelope v = values[i];
            if (audit != null && !v.to().isConsumer()) {
                audit.edge(completion.id(), v.to().target());
            }
            storeValue(c, v, e, p, i == completion.claimedValue());
            if (c.phase != ComputationState.Phase.RUNNING) {
                break;
            }
        }
        if (spawned.length > 0) {
            charge(c);
        }
        dispatch();
    }

    /**
     * {@code p}'s completion is not applied: it drops the task it claimed (its worker runs it now, and would claim
     * on), the child it cached and the copies it kept of the tasks it stored, none of which this run stores. But a
     * task that another copy's completion stored may since have been given to {@code p}, or its copy kept there: a
     * producer holds one copy of a task, which it cannot tell apart, so then that one stays.
     */
    private void discardHeldEffects(ProducerState p, Completion completion) {
        ComputationState c = computations.get(completion.id().computation());
        TaskId claimed = completion.claimed() >= 0 ? completion.spawned()[completion.claimed()].id()
                : completion.claimedValue() >= 0 ? completion.values()[completion.claimedValue()].to().target() : null;
        if (claimed != null && !heldBy(c, claimed, p)) {
            outbox.drop(p, claimed);
        }
        if (completion.cachedHere() >= 0) {
            TaskId cached = completion.spawned()[completion.cachedHere()].id();
            dispatcher.cachedChildNotStored(p, cached, heldBy(c, cached, p));
        }
        if (completion.keeps()) {
            for (TaskEnvelope spawned : completion.spawned()) {
                TaskEntry child = c == null ? null : c.tasks.get(spawned.id());
                if (Completion.keepable(spawned) && (child == null || !child.keptBy(p))) {
                    outbox.unkeep(p, spawned.id());
                }
            }
        }
    }

    private static boolean heldBy(ComputationState c, TaskId id, ProducerState p) {
        TaskEntry e = c == null ? null : c.tasks.get(id);
        return e != null && e.heldBy(p);
    }

    /**
     * Records {@code p}'s result of a validated computation's task (the digest of its effects, or
     * {@link Opinions#FAILED}); true once {@code c.quorum} producers of different owners returned equal digests, and
     * the result may apply (any of the agreeing ones: they are equal). Until then the task waits outside the ready
     * heap for a producer of another owner; a producer whose result the quorum contradicts is reported. When more
     * results than the quorum plus one disagree, the task cannot be validated and its computation fails.
     */
    private boolean validated(ComputationState c, TaskEntry e, ProducerState p, byte[] digest) {
        e.removeHolder(p);
        p.held.remove(e);
        dispatcher.withdraw(e, e.holderCount() == 0);
        if (e.opinions == null) {
            e.opinions = new Opinions(c.quorum);
        }
        switch (e.opinions.add(p.owner, p.name, digest)) {
            case Opinions.Verdict.SameOwner same -> {
                counters.opinionsOfSameOwner++;
                dispatcher.awaitOpinion(e);
                return false;
            }
            case Opinions.Verdict.Waiting waiting -> {
                dispatcher.awaitOpinion(e);
                return false;
            }
            case Opinions.Verdict.Agreed agreed -> {
                for (Opinions.Opinion o : agreed.contradicted()) {
                    counters.validationDissents++;
                    dissenter.accept(o, e.envelope.id());
                }
                e.opinions = null;
                dispatcher.opinionsAgreed(e);
                counters.tasksValidated++;
                return true;
            }
            case Opinions.Verdict.Undecidable u -> {
                fail(c, e.envelope.id().toString(), "the results of task " + e.envelope.id() + " from "
                        + u.results() + " producers of different owners do not reach a quorum of " + c.quorum
                        + " equal ones: is the task deterministic in its effects?", now);
                return false;
            }
        }
    }

    /**
     * Task {@code id} threw or could not be decoded on {@code p} (null: on this server): the computation fails,
     * everything else carries on. A producer can only fail a task it holds.
     */
    public void taskFailed(ProducerState p, TaskId id, String reason, long nowNanos) {
        ComputationState c = computations.get(id.computation());
        TaskEntry e = c == null ? null : c.tasks.get(id);
        if (e == null || c.phase != ComputationState.Phase.RUNNING) {
            return; // a stale report for a computation that is over, or a task that completed elsewhere
        }
        if (p != null && !e.heldBy(p)) {
            counters.effectsRefused++;
            return;
        }
        if (c.quorum > 1 && p != null && !validated(c, e, p, Opinions.FAILED)) {
            dispatch();
            return; // a producer alone cannot fail a validated computation
        }
        fail(c, id.toString(), reason, nowNanos);
    }

    void fail(ComputationState c, String taskId, String reason, long nowNanos) {
        if (c.origin != self) {
            outbox.route(c.origin, new RoutedPayload.Failure(c.id, taskId, reason));
            return; // the origin fails the computation and tells every server it is over
        }
        c.phase = ComputationState.Phase.FAILED;
        c.failedTask = taskId;
        c.failure = reason;
        c.finishedNanos = nowNanos;
        counters.computationsFailed++;
        finish(c);
    }

    /** The computation is over at its origin: record it, drop its tasks, tell the consumer. */
    private void finish(ComputationState c) {
        if (log.active()) {
            log.record(finished(c));
        }
        end(c);
        deliver(c);
    }

    /** How finished computation {@code c} ended, for the mirrors. */
    static MirrorOp.Finished finished(ComputationState c) {
        ComputationSummary s = c.summary();
        return new MirrorOp.Finished(c.id, c.result, c.failedTask, c.failure, s.tasks(), s.executions(), s.t1Nanos(),
                s.wallNanos());
    }

    /** The scheduler's notion of "now" for completion timestamps; set by the conductor before each command. */
    public void tick(long nowNanos) {
        this.now = nowNanos;
        ready.tick(nowNanos);
        dispatcher.tick(nowNanos);
    }

    // ---------------------------------------------------------------- internals

    /**
     * Stores a task with the inputs it has so far ({@code inputs} may be null: none yet); {@code how} it came here
     * is for audit trails. Returns its new entry, or null if it was a duplicate.
     */
    TaskEntry store(ComputationState c, TaskEnvelope envelope, int home, byte[][] inputs, String how) {
        TaskEntry e = new TaskEntry(envelope, seq, home);
        if (!c.add(e)) {
            counters.duplicatesDiscarded++;
            return null;
        }
        seq++;
        outbox.stored(envelope.id(), how);
        if (inputs != null) {
            for (int i = 0; i < Math.min(inputs.length, e.arity()); i++) {
                if (inputs[i] != null) {
                    e.setInput(i, inputs[i]);
                }
            }
        }
        c.storedBytes += e.bytes();
        counters.tasksStored++;
        if (log.active()) {
            log.record(new MirrorOp.Put(envelope, home, c.origin, e.inputs()));
        }
        if (e.isReady()) {
            becameReady(e);
        }
        return e;
    }

    /**
     * Which server holds the target of {@code to}, a continuation in the effects of completed task {@code e}: the
     * target of {@code e}'s own continuation lives where {@code e}'s home says; anything else {@code e} can name (the
     * tasks it spawned) lives here.
     */
    private int homeOf(Continuation to, TaskEntry e) {
        Continuation own = e.envelope.continuation();
        boolean ownTarget = !to.isConsumer() && !own.isConsumer() && to.target().equals(own.target());
        return ownTarget ? e.home : self;
    }

    /**
     * Stores value {@code v}, an effect of {@code sender} sent by producer {@code from} (both null: routed from
     * another server, to a task here). {@code claimed}: {@code from} says it is already running the target, because
     * this value completes it and it kept a copy.
     */
    private void storeValue(ComputationState c, ValueEnvelope v, TaskEntry sender, ProducerState from,
                            boolean claimed) {
        Continuation to = v.to();
        if (to.isConsumer() && c.origin != self) {
            outbox.route(c.origin, new RoutedPayload.Value(c.id, v, c.untold()));
            return;
        }
        if (to.isConsumer()) {
            c.result = v.value();
            c.phase = ComputationState.Phase.DONE;
            c.finishedNanos = now;
            counters.computationsCompleted++;
            finish(c);
            return;
        }
        int where = sender == null ? self : resolve.applyAsInt(homeOf(to, sender));
        if (where != self) {
            outbox.route(where, new RoutedPayload.Value(c.id, v, c.untold()));
            return;
        }
        TaskEntry target = c.target(to.target(), sender);
        if (target == null || to.argNo() >= target.arity()) {
            counters.duplicatesDiscarded++; // the target already completed, or never existed
            return;
        }
        if (!target.setInput(to.argNo(), v.value())) {
            if (!target.envelope.firstInputWins() && !ValueRef.sameValue(target.input(to.argNo()), v.value())) {
                fail(c, to.target().toString(), "task " + to.target() + " was sent a second, different value for its "
                        + "input " + to.argNo() + ": each input takes one value, so a task sent it to the wrong "
                        + "continuation (a task that takes whichever value comes first overrides "
                        + "Task.firstInputWins())", now);
                return;
            }
            counters.duplicatesDiscarded++; // the same value again, or one the target lets go
            return;
        }
        c.storedBytes += v.value().length;
        if (v.value().length >= CHARGE_AT_ONCE_BYTES) {
            charge(c); // small values are counted with the next batch of stored tasks
        }
        if (log.active()) {
            log.record(new MirrorOp.Input(to.target(), to.argNo(), v.value()));
        }
        boolean completesByReference = target.isReady() && ValueRef.is(v.value());
        for (ProducerState keeper : target.keepers()) {
            if (keeper == from) {
                continue;
            }
            if (completesByReference) {
                // A large value that completes the task is not copied to every keeper: the task is handed out here
                // with the inputs its producer lacks, and the others let their copies go.
                outbox.unkeep(keeper, target.envelope.id());
            } else {
                // A keeper learns of every input it did not send. One that completes the task tells it the task
                // is handed out here (a Drop could overtake the task's own Assign to the keeper and cancel it).
                outbox.input(keeper, v);
                counters.inputsForwarded++;
            }
        }
        if (target.isReady()) {
            boolean claimValid = claimed && from != null && target.keptBy(from);
            if (!claimValid) {
                target.dataAt = Dispatcher.holderOfInputs(target, v, from);
            }
            target.clearKeepers();
            becameReady(target);
            if (claimValid && target.heapIndex >= 0) {
                dispatcher.claim(from, target);
            }
        }
    }

    /**
     * The peers that will read the large value {@code ref} whose chunks producer {@code from} is about to send on
     * their way to {@code to}, so that they may be passed on as they arrive: the consumer, for the result of a running
     * computation that started here; the other keepers of a waiting task here that the value does not complete (one
     * it completes runs where its inputs are, decided when it is ready) while no other of its inputs is on its way.
     * None for anything else.
     */
    long[] readersAhead(ProducerState from, ValueRef ref, Continuation to) {
        ComputationState c = computations.get(ref.computation());
        if (c == null || c.phase != ComputationState.Phase.RUNNING) {
            return NO_PEERS;
        }
        if (to.isConsumer()) {
            return c.origin == self && c.consumer != null ? new long[] {c.consumer.peerId()} : NO_PEERS;
        }
        TaskEntry target = to.target().computation() == c.id ? c.tasks.get(to.target()) : null;
        if (target == null || to.argNo() >= target.arity() || target.input(to.argNo()) != null
                || target.lacksOnly(to.argNo())) {
            return NO_PEERS;
        }
        if (target.inputAhead >= 0 && target.inputAhead != to.argNo() && target.input(target.inputAhead) == null) {
            // Another input is arriving and passed on already: if it arrives first, this one completes the task, which
            // then runs where its inputs are; if not, this one goes to the keepers whole when it is in.
            return NO_PEERS;
        }
        long[] others = java.util.Arrays.stream(target.keepers()).filter(k -> k != from).mapToLong(k -> k.peerId)
                .toArray();
        if (others.length > 0) {
            target.inputAhead = to.argNo();
        }
        return others;
    }

    private void becameReady(TaskEntry e) {
        if (e.bytes() > maxReadyTaskBytes) {
            oversized.add(e); // failed after the command that made it ready, which may still be storing its siblings
            return;
        }
        if (e.envelope.onServer()) {
            outbox.runOnServer(e.toReadyTask()); // its completion comes back like any other, from no producer
        } else {
            ready.add(e);
        }
    }

    /** Fails the computations of ready tasks that no message could carry, naming the task and its size. */
    private void failOversized() {
        for (TaskEntry e : oversized) {
            ComputationState c = computations.get(e.computation);
            if (c != null && c.phase == ComputationState.Phase.RUNNING && c.tasks.get(e.envelope.id()) == e) {
                fail(c, e.envelope.id().toString(), "task " + e.envelope.id() + " with its inputs takes " + e.bytes()
                        + " bytes, over the message limit of " + (maxReadyTaskBytes + 4096) + " bytes "
                        + "(-Dcx.maxMessageBytes on every process): send smaller values, or split the data over "
                        + "more tasks", now);
            }
        }
        oversized.clear();
    }

    /** A computation adopted from a failed server's copy was over there: it ends here, every server told again. */
    void endAdopted(ComputationState c) {
        end(c);
    }

    /** Drops every remaining task of a finished computation and tells the producers. */
    private void end(ComputationState c) {
        replication.untallied(c);
        users.uncharge(c);
        for (TaskEntry e : c.tasks.values()) {
            dispatcher.withdraw(e, true);
            for (int i = 0; i < e.holderCount(); i++) {
                e.holder(i).held.remove(e);
            }
        }
        c.forgetAll();
        c.storedBytes = 0;
        outbox.computationEnded(c.id, c.origin == self);
    }

    /** Sends a finished computation's outcome to its consumer and watchers, if it has any. */
    void deliver(ComputationState c) {
        if (c.phase == ComputationState.Phase.RUNNING) {
            return;
        }
        if (c.consumer != null) {
            deliver(c, c.consumer);
        }
        for (ConsumerHandle watcher : c.watchers) {
            deliver(c, watcher);
        }
        c.watchers.clear();
    }

    private void deliver(ComputationState c, ConsumerHandle to) {
        if (c.phase == ComputationState.Phase.DONE) {
            outbox.result(to, c.id, c.result, c.summary());
        } else {
            outbox.failed(to, c.id, c.failedTask, c.failure);
        }
    }

    /**
     * Hands ready tasks to hungry producers ({@link Dispatcher#dispatch}), once the computations of tasks too large
     * to send have failed.
     */
    public void dispatch() {
        dispatch(false);
    }

    private void dispatch(boolean eager) {
        if (!oversized.isEmpty()) {
            failOversized();
        }
        dispatcher.dispatch(eager);
    }

    /**
     * Periodic check (the conductor calls it every few milliseconds): also hands late tasks to idle workers. Kept
     * out of the per-message path because finding late tasks walks the heap once per idle producer.
     */
    public void dispatchWithEagerCopies() {
        dispatch(true);
    }

    /** When a running task of a kind none of which has completed yet counts as late ({@link LateTasks}). */
    long latenessNanos() {
        return late.latenessOfANewKind();
    }

    // ---------------------------------------------------------------- the production network

    /**
     * A value routed here from another server, for a task that lives here or for this origin's consumer, with the
     * sender's counts for the computation.
     */
    public void routedValue(RoutedPayload.Value routed) {
        ComputationState c = computations.get(routed.computation());
        if (c == null || c.phase != ComputationState.Phase.RUNNING) {
            counters.duplicatesDiscarded++; // over, or its target completed and left
            return;
        }
        c.add(routed.tally());
        replication.tallied(c);
        storeValue(c, routed.value(), null, null, false);
        dispatch();
    }

    /** A task of a computation that originated here failed on another server. */
    public void routedFailure(long computation, String taskId, String reason) {
        ComputationState c = computations.get(computation);
        if (c != null && c.phase == ComputationState.Phase.RUNNING) {
            fail(c, taskId, reason, now);
        }
    }

    /**
     * Some tasks are gone for good (a server and every copy of its state failed): every computation running from
     * here fails with {@code reason}, since any of them may have had tasks there.
     */
    public void failAllRunning(String reason) {
        submissions.stateLost(reason);
        for (ComputationState c : new ArrayList<>(computations.values())) {
            if (c.origin == self && c.phase == ComputationState.Phase.RUNNING) {
                fail(c, "", reason, now); // no single task is to blame
            }
        }
    }

    /** This server's record of computation {@code id}, created for tasks that came from elsewhere; null if over. */
    ComputationState branch(long id, int origin, String bundle) {
        ComputationState c = computations.get(id);
        if (c == null && forgotten.contains(id)) {
            return null; // over: its late tasks are dropped
        }
        if (c == null) {
            c = new ComputationState(id, now, null);
            c.origin = resolve.applyAsInt(origin);
            computations.put(id, c);
            outbox.computationStarted(id);
            setBundle(c, bundle);
        }
        return c.phase == ComputationState.Phase.RUNNING ? c : null;
    }

    void setBundle(ComputationState c, String bundle) {
        c.bundle = bundle;
        if (!bundle.isEmpty()) {
            if (log.active()) {
                log.record(new MirrorOp.Code(c.id, bundle));
            }
            outbox.codeNeeded(c.id, bundle);
        }
    }

    /** The code bundle computation {@code id} runs from ({@code ""}: the class path), or null if it is unknown. */
    public String bundleOf(long id) {
        ComputationState c = computations.get(id);
        return c == null ? null : c.bundle;
    }

    /** The user whose computation {@code id} is (empty on a plain network, or if it is unknown here). */
    public String ownerOf(long id) {
        ComputationState c = computations.get(id);
        return c == null ? "" : c.owner;
    }

    /** Unassigned ready tasks: what diffusion may move. */
    public int freshCount() {
        return ready.freshCount();
    }

    /** Prefetched copies no producer has started, as far as this server knows: what it could revoke. */
    public int queuedCount() {
        return dispatcher.queuedCount();
    }

    /**
     * Neighbouring servers report this many idle workers they have no task for ({@link Dispatcher#setRemoteIdle}).
     */
    void setRemoteIdle(int idle) {
        if (dispatcher.setRemoteIdle(idle)) {
            dispatch();
        }
    }

    /** Called before fresh tasks go to producers here while neighbours have idle workers (diffusion's seeding). */
    void setSeeder(Runnable seeder) {
        dispatcher.setSeeder(seeder);
    }

    /** Tasks the producers asked for and were not given yet (idle workers and prefetch credit). */
    public int demand() {
        return demand.credit();
    }

    /** Worker threads over all producers attached here. */
    public int workers() {
        return demand.workers();
    }

    /** Workers waiting for a task right now, over all producers. */
    public int idleWaiting() {
        return demand.idleWaiting();
    }

    /** Tasks stored here, ready or not. */
    public int taskCount() {
        int n = 0;
        for (ComputationState c : computations.values()) {
            n += c.tasks.size();
        }
        return n;
    }

    /** Computation {@code id} ended at its origin (elsewhere): drop what is left of it here. */
    public void endedElsewhere(long id) {
        ComputationState c = computations.get(id);
        if (c == null) {
            remember(id); // tasks of it may still be on their way here
        } else if (c.origin != self) {
            end(c);
            forget(c);
        }
    }

    /** Who is told of a result the quorum contradicted (the server logs it). */
    void onDissent(java.util.function.BiConsumer<Opinions.Opinion, TaskId> handler) {
        this.dissenter = handler;
    }

    /** Producers of different owners that must agree on each task of computation {@code id} (1: no validation). */
    public int quorumOf(long id) {
        ComputationState c = computations.get(id);
        return c == null ? 1 : c.quorum;
    }

    // ---------------------------------------------------------------- views

    public int readyCount() {
        return ready.size();
    }

    public int computationsActive() {
        return computations.size();
    }

    /** Ready tasks some producer holds. */
    public int runningCount() {
        return late.size();
    }

    /** One computation as this server holds it, for the console. */
    public record ComputationView(long id, boolean origin, long done, int stored, long sinceNanos, String phase) {
    }

    /** Each task of {@code computation} held here, with whether it is ready and where it lives: for diagnosis. */
    public List<String> describeTasks(long computation) {
        ComputationState c = computations.get(computation);
        if (c == null) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        for (TaskEntry e : c.tasks.values()) {
            lines.add(e.envelope.id() + (e.isReady() ? " ready" : " waiting for inputs") + ", home " + e.home);
        }
        return lines;
    }

    public List<ComputationView> computationViews() {
        List<ComputationView> views = new ArrayList<>(computations.size());
        for (ComputationState c : computations.values()) {
            views.add(view(c));
        }
        return views;
    }

    /** Computation {@code id} as this server holds it, or null. */
    public ComputationView computationView(long id) {
        ComputationState c = computations.get(id);
        return c == null ? null : view(c);
    }

    private ComputationView view(ComputationState c) {
        return new ComputationView(c.id, c.origin == self, c.completedHere, c.tasks.size(), c.submittedNanos,
                c.phase.name());
    }

    /** Every attached producer. */
    public List<ProducerState> producerStates() {
        return new ArrayList<>(producers.values());
    }

    public int producerCount() {
        return producers.size();
    }

    /** Snapshot of a computation's summary, or null if unknown. */
    public ComputationSummary summary(long computation) {
        ComputationState c = computations.get(computation);
        return c == null ? null : c.summary();
    }
}
