package org.cx.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Iterator;
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
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.Message;
import org.cx.wire.ValueEnvelope;

/**
 * The scheduling state of one task server (paper §4.1) as a single-threaded state machine: every method is a
 * command, applied whole, and answers through the {@link Outbox}. Time is passed in. See the package docs for the
 * invariants it keeps.
 *
 * <p>Its parts with a rule of their own are classes of their own ({@link ReadyHeap}, {@link ProducerDemand},
 * {@link LateTasks}, {@link TaskEntry}, {@link ComputationState}, {@link UserLedger}). What stays here (about 1,100
 * lines) is every command's whole effect: a completion, for one, stores children, values, claims and kept copies,
 * removes the task from every holder, charges its user and records the mirror operations, and its invariants hold
 * only if all of that happens in one step over the same maps.
 */
public final class Scheduler {
    /**
     * Tasks one producer may hold at once, beyond one per worker: an honest producer caches at most 256
     * ({@code ProducerConfig.maxCached}); one that asks for more only hoards tasks others could run.
     */
    static final int MAX_CREDIT = 1024;

    private static int maxCredit(ProducerState p) {
        return Math.max(MAX_CREDIT, 2 * p.workers);
    }

    /** At most this many producers keep a copy of one task (each costs a message per input). */
    static final int MAX_KEEPERS = 4;

    private final Outbox outbox;
    private final long resultRetentionNanos;
    /** Draws computation ids: unguessable on a real server, repeatable in a simulation. */
    private final RandomGenerator ids;
    private final UserLedger users = new UserLedger();
    private final Map<Long, ComputationState> computations = new HashMap<>();
    private java.util.function.LongConsumer onForget = id -> { };
    private final Map<Long, ProducerState> producers = new HashMap<>();
    private final ReadyQueues ready = new ReadyQueues(computations::get);
    private final ProducerDemand demand = new ProducerDemand();
    /** Idle workers at neighbouring servers with no task to give them: fresh tasks here are kept for diffusion. */
    private int remoteIdle;
    /** Called before fresh tasks go to producers here while neighbours have idle workers (diffusion's seeding). */
    private Runnable seeder = () -> { };
    private final EffectAudit audit;
    private long seq;
    private int revokesOutstanding;
    private final LateTasks late = new LateTasks();
    /** A value this large is counted against its user's quota at once (smaller ones with the next stored tasks). */
    private static final int CHARGE_AT_ONCE_BYTES = 64 << 10;
    /** What a ready task may take with its inputs: the largest message, less room for its other fields. */
    private final long maxReadyTaskBytes = org.cx.wire.WireConfig.maxMessageBytes() - 4096L;
    /**
     * Computations that ended and were forgotten here, most recent last, so that tasks of theirs still on their way
     * (a transfer sent before the end) do not bring them back to life.
     */
    private final java.util.LinkedHashSet<Long> forgotten = new java.util.LinkedHashSet<>();
    /** How many forgotten computations are remembered. */
    static final int FORGOTTEN_REMEMBERED = 100_000;
    /** Ready tasks too large to send anywhere; their computations fail at the next dispatch. */
    private final List<TaskEntry> oversized = new ArrayList<>();
    /** Validated tasks with a result that waits for another owner's ({@link TaskEntry#opinions}), oldest first. */
    private final LinkedHashSet<TaskEntry> awaitingOpinion = new LinkedHashSet<>();
    /** Told of each result a quorum contradicted, and of the task. */
    private java.util.function.BiConsumer<Opinions.Opinion, TaskId> dissenter = (o, id) -> { };
    /** Tasks whose only copies were prefetched and that were not asked about yet, oldest first. */
    private final LinkedHashSet<TaskEntry> revocable = new LinkedHashSet<>();
    /** Computations whose counts changed since {@link #logTallies} last ran. */
    private final Set<ComputationState> tallied = new LinkedHashSet<>(); // iterated: insertion order, repeatable
    /** Set by {@link #tick} before each command: time is passed in, never read. */
    private long now;
    /** Meters executions for the accounting service; null unless asked for. */
    private UsageMeter meter;
    /** Usage sealed and not yet acknowledged by the accounting service (replicated). */
    private final UsageBatches usageBatches = new UsageBatches();
    /** Users whose weight counts twice ({@link #favour}). */
    private Set<String> favoured = Set.of();
    private final SchedulerCounters counters = new SchedulerCounters();
    /** This server's id in the production network (1 when it stands alone). */
    private int self = 1;
    /** Where a server's tasks live now: itself, or the server that took over from it after it failed. */
    private IntUnaryOperator resolve = IntUnaryOperator.identity();
    private StateLog log = StateLog.NONE;

    /**
     * @param resultRetentionNanos how long a finished computation's result waits for its consumer
     * @param ids                  draws computation ids (a {@code SecureRandom}: an id must not be guessable)
     * @param audit                records applied effects per task id (tests), or null
     */
    public Scheduler(Outbox outbox, long resultRetentionNanos, RandomGenerator ids, EffectAudit audit) {
        this.outbox = outbox;
        this.resultRetentionNanos = resultRetentionNanos;
        this.ids = ids;
        this.audit = audit;
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
     * Why a submission by {@code consumer} is refused: its user runs as many computations here as its quota allows;
     * null if it may submit.
     */
    public String submitRefusal(ConsumerHandle consumer) {
        String owner = consumer.owner();
        if (owner.isEmpty()) {
            return null;
        }
        int running = 0;
        for (ComputationState c : computations.values()) {
            if (c.origin == self && c.phase == ComputationState.Phase.RUNNING && owner.equals(c.owner)) {
                running++;
            }
        }
        return users.submissionRefusal(owner, running);
    }

    /**
     * Counts {@code c}'s stored tasks against its user's quota; fails it, saying why, if the user now holds more
     * than the quota here. Called after each change that can store many tasks at once.
     */
    private void charge(ComputationState c) {
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

    // ---------------------------------------------------------------- consumers

    /** Starts a computation with {@code root} as its root task, from the class path; returns its id. */
    public long submit(ConsumerHandle consumer, TaskEnvelope root, long nowNanos) {
        return submit(consumer, root, "", nowNanos);
    }

    /** Starts a computation with {@code root} as its root task, from code bundle {@code bundle}; returns its id. */
    public long submit(ConsumerHandle consumer, TaskEnvelope root, String bundle, long nowNanos) {
        return submit(consumer, root, bundle, 1, nowNanos);
    }

    /**
     * Starts a computation whose tasks' effects apply only once {@code quorum} producers of different owners
     * returned equal ones (1: at once).
     */
    public long submit(ConsumerHandle consumer, TaskEnvelope root, String bundle, int quorum, long nowNanos) {
        return submit(consumer, root, bundle, quorum, 0, 0, nowNanos);
    }

    /**
     * Starts a computation ranked {@code priority} among its user's computations, which fails once it has run for
     * {@code timeoutNanos} (0: never); see {@link #submit(ConsumerHandle, TaskEnvelope, String, int, long)}.
     */
    public long submit(ConsumerHandle consumer, TaskEnvelope root, String bundle, int quorum, int priority,
                       long timeoutNanos, long nowNanos) {
        long id;
        do {
            id = ids.nextLong() & Long.MAX_VALUE;
        } while (id == 0 || computations.containsKey(id));
        ComputationState c = new ComputationState(id, nowNanos, consumer);
        c.origin = self;
        c.owner = consumer.owner();
        c.quorum = quorum;
        c.priority = priority;
        c.timeoutNanos = timeoutNanos;
        computations.put(id, c);
        if (log.active()) {
            log.record(new MirrorOp.Started(id, nowNanos, c.owner, c.quorum, c.priority, c.timeoutNanos));
        }
        setBundle(c, bundle);
        TaskEnvelope named = new TaskEnvelope(TaskId.root(id), Continuation.CONSUMER, root.arity(), root.priority(),
                root.onServer(), root.body());
        store(c, named, self, null, "submitted");
        charge(c);
        counters.computationsSubmitted++;
        dispatch();
        return id;
    }

    /**
     * A consumer asks for the result of {@code computation}; returns false if it is unknown (or expired) or another
     * user's, which the asker cannot tell apart.
     */
    public boolean collect(ConsumerHandle consumer, long computation) {
        return collect(consumer, computation, false);
    }

    /**
     * A consumer asks for the result of {@code computation}: with {@code watch}, a copy of it, leaving its delivery
     * to whoever collects it; without, it takes the delivery over. Returns false if it is unknown (or expired) or
     * another user's, which the asker cannot tell apart.
     */
    public boolean collect(ConsumerHandle consumer, long computation, boolean watch) {
        ComputationState c = computations.get(computation);
        if (c == null || c.origin != self || !c.owner.equals(consumer.owner())) {
            return false;
        }
        if (watch) {
            c.watchers.add(consumer);
        } else {
            c.consumer = consumer;
            c.abandonedSince = -1;
        }
        deliver(c);
        return true;
    }

    /**
     * The owner of {@code computation} cancels it: it fails with that reason, which ends it on every server and
     * producer (their unstarted tasks dropped, running ones' effects refused). Returns why it cannot be, or null.
     */
    public String cancel(ConsumerHandle consumer, long computation, long nowNanos) {
        ComputationState c = computations.get(computation);
        String refusal = refusal(consumer, computation, c);
        return refusal != null ? refusal : end(c, "cancelled" + (c.owner.isEmpty() ? "" : " by " + c.owner),
                nowNanos);
    }

    /**
     * An administrator cancels {@code computation}, whoever owns it (a JMX operation, which only an admin credential
     * may invoke): as {@link #cancel}. Returns why it cannot be, or null.
     */
    public String cancelAsAdministrator(long computation, long nowNanos) {
        ComputationState c = computations.get(computation);
        if (c == null) {
            return "no computation " + Long.toHexString(computation) + " on this server";
        }
        if (c.phase != ComputationState.Phase.RUNNING) {
            return "computation " + Long.toHexString(computation) + " is over already (" + c.phase + ")";
        }
        return end(c, "cancelled by an administrator", nowNanos);
    }

    private String end(ComputationState c, String reason, long nowNanos) {
        counters.computationsCancelled++;
        fail(c, "", reason, nowNanos);
        dispatch();
        return null;
    }

    /** Why {@code consumer} may not act on {@code computation} ({@code c}, maybe null): none of its, or over. */
    private static String refusal(ConsumerHandle consumer, long computation, ComputationState c) {
        if (c == null || !c.owner.equals(consumer.owner())) {
            return "no computation " + Long.toHexString(computation) + " of this user on this server";
        }
        if (c.phase != ComputationState.Phase.RUNNING) {
            return "computation " + Long.toHexString(computation) + " is over already (" + c.phase + ")";
        }
        return null;
    }

    /**
     * The owner of {@code computation} gives it a new priority among its computations; every other server holding
     * its tasks is told. Returns why it cannot be, or null.
     */
    public String prioritize(ConsumerHandle consumer, long computation, int priority) {
        ComputationState c = computations.get(computation);
        String refusal = refusal(consumer, computation, c);
        if (refusal == null && c.origin != self) {
            refusal = "computation " + Long.toHexString(computation) + " was not submitted to this server";
        }
        if (refusal != null) {
            return refusal;
        }
        reprioritize(c, priority);
        if (log.active()) {
            log.record(new MirrorOp.Reprioritized(computation, priority));
        }
        outbox.reprioritized(computation, priority);
        dispatch();
        return null;
    }

    /** Computation {@code computation}'s origin gave it a new priority. */
    public void prioritizedElsewhere(long computation, int priority) {
        ComputationState c = computations.get(computation);
        if (c != null && c.phase == ComputationState.Phase.RUNNING) {
            reprioritize(c, priority);
            dispatch();
        }
    }

    private void reprioritize(ComputationState c, int priority) {
        c.priority = priority;
        ready.reprioritized(c.id);
    }

    /**
     * This user's computations this server delivers, running or with a result not collected yet, oldest first:
     * each as a diagnosis without waiting tasks listed.
     */
    public Message.ComputationList list(ConsumerHandle consumer) {
        return new Message.ComputationList(computations.values().stream()
                .filter(c -> c.origin == self && c.owner.equals(consumer.owner()))
                .sorted(java.util.Comparator.comparingLong(c -> c.submittedNanos))
                .map(c -> c.diagnosis(now, 0))
                .toArray(Message.Diagnosis[]::new));
    }

    /**
     * Where {@code computation} stands on this server, for its owner: its tasks ready, running and waiting, and the
     * inputs the first {@link org.cx.api.Diagnosis#LISTED} waiting ones lack (oldest first). An unknown computation,
     * or another user's, has an empty phase.
     */
    public Message.Diagnosis diagnose(ConsumerHandle consumer, long computation) {
        ComputationState c = computations.get(computation);
        if (c == null || !c.owner.equals(consumer.owner())) {
            return Message.Diagnosis.unknown(computation);
        }
        return c.diagnosis(now, org.cx.api.Diagnosis.LISTED);
    }

    /** {@link #diagnose(ConsumerHandle, long)} for an operator, whoever's it is; null if it is unknown. */
    public Message.Diagnosis diagnose(long computation) {
        ComputationState c = computations.get(computation);
        return c == null ? null : c.diagnosis(now, org.cx.api.Diagnosis.LISTED);
    }


    /** The consumer has the result; forget the computation. */
    public void collected(ConsumerHandle consumer, long computation) {
        ComputationState c = computations.get(computation);
        if (c != null && c.phase != ComputationState.Phase.RUNNING && c.owner.equals(consumer.owner())) {
            computations.remove(computation);
            forget(computation);
            if (log.active()) {
                log.record(new MirrorOp.Forget(computation));
            }
        }
    }

    /** Calls {@code action} with each computation that is over and gone from here. */
    public void onForget(java.util.function.LongConsumer action) {
        this.onForget = action;
    }

    /** Whether computation {@code id} is here: running, or finished and its result kept. */
    public boolean knows(long id) {
        return computations.containsKey(id);
    }

    /** Remembers that {@code id} is over and gone from here (the oldest such memory goes beyond the bound). */
    private void forget(long id) {
        onForget.accept(id);
        forgotten.add(id);
        if (forgotten.size() > FORGOTTEN_REMEMBERED) {
            forgotten.remove(forgotten.iterator().next());
        }
    }

    public void consumerGone(ConsumerHandle consumer) {
        for (ComputationState c : computations.values()) {
            c.watchers.remove(consumer);
            if (c.consumer == consumer) {
                c.consumer = null; // keep running; the result waits to be collected
                c.abandonedSince = now;
            }
        }
    }

    /** Forgets finished computations whose results were not collected within the retention time. */
    public int expire(long nowNanos) {
        Map<ComputationState, String> overdue = new LinkedHashMap<>();
        for (ComputationState c : computations.values()) {
            String why = Deadlines.overdue(c, self, users.quotas(), nowNanos);
            if (why != null) {
                overdue.put(c, why);
            }
        }
        overdue.forEach((c, why) -> {
            c.overTimeReported = true; // a server other than the origin reports it once
            fail(c, "", why, nowNanos);
        });
        for (TaskEntry e : late.runningSince(nowNanos - users.quotas().taskTime().toNanos())) {
            ComputationState c = computations.get(e.envelope.id().computation());
            if (c != null && c.phase == ComputationState.Phase.RUNNING && c.tasks.get(e.envelope.id()) == e) {
                fail(c, e.envelope.id().toString(), "task " + e.envelope.id() + " has run for more than "
                        + users.quotas().taskTime().toSeconds() + " s without finishing (--task-time-limit): it may loop",
                        nowNanos);
            }
        }
        int expired = 0;
        for (Iterator<ComputationState> it = computations.values().iterator(); it.hasNext(); ) {
            ComputationState c = it.next();
            if (c.phase != ComputationState.Phase.RUNNING && nowNanos - c.finishedNanos > resultRetentionNanos) {
                it.remove();
                forget(c.id);
                expired++;
                if (log.active()) {
                    log.record(new MirrorOp.Forget(c.id));
                }
            }
        }
        counters.resultsExpired += expired;
        return expired;
    }

    // ---------------------------------------------------------------- producers

    public ProducerState addProducer(long peerId, String name, int workers) {
        return addProducer(peerId, name, name, workers);
    }

    /** A producer joins; {@code owner} answers for its results (validated computations compare owners). */
    public ProducerState addProducer(long peerId, String name, String owner, int workers) {
        ProducerState p = new ProducerState(peerId, name, owner, workers);
        producers.put(peerId, p);
        demand.joined(p);
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

    /**
     * Seals what was metered since the last call as a usage batch named {@code prefix} and a number, recorded for the
     * mirrors; returns the batches to send now (this one, and any adopted from a failed server), by id.
     */
    Map<String, org.cx.wire.Usage[]> sealUsage(String prefix, long nowNanos) {
        usageBatches.seal(prefix, drainUsage(nowNanos), log);
        return usageBatches.toSend();
    }

    /** The accounting service acknowledged usage batch {@code id}. */
    void usageAcknowledged(String id) {
        usageBatches.acknowledged(id, log);
    }

    /** Usage batches not yet acknowledged by the accounting service. */
    public int usageBatchesWaiting() {
        return usageBatches.size();
    }

    /** A producer left (crash, disconnect): what it held becomes fresh for the others. */
    public void removeProducer(ProducerState p) {
        producers.remove(p.peerId);
        demand.left(p);
        if (meter != null) {
            meter.left(p, now);
        }
        // Revokes it will never answer: those tasks may be asked of their other holders again.
        for (TaskId[] asked : p.pendingRevokes) {
            for (TaskId id : asked) {
                ComputationState c = computations.get(id.computation());
                TaskEntry e = c == null ? null : c.tasks.get(id);
                if (e != null && e.revoke == TaskEntry.Revoke.REQUESTED) {
                    e.revoke = TaskEntry.Revoke.NONE;
                    revokesOutstanding--;
                }
            }
        }
        p.pendingRevokes.clear();
        List<TaskEntry> held = new ArrayList<>(p.held);
        held.sort(java.util.Comparator.comparingLong(e -> e.seq)); // a repeatable order (a simulation replays it)
        for (TaskEntry e : held) {
            e.removeHolder(p);
            letGo(e);
        }
        counters.tasksReleased += p.held.size();
        p.held.clear();
        dispatch();
    }

    /** One holder less for {@code e}: with none left it is fresh for the others. */
    private void letGo(TaskEntry e) {
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
            if (e.revoke == TaskEntry.Revoke.REQUESTED && p.pendingRevokes.stream().anyMatch(
                    asked -> java.util.Arrays.asList(asked).contains(id))) {
                e.revoke = TaskEntry.Revoke.NONE; // p's answer to that revoke will not name it
                revokesOutstanding--;
            }
            letGo(e);
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
        demand.set(p, (int) Math.min(asked, maxCredit(p)), Math.min(idleWorkers, p.workers));
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
        TaskId[] asked = p.pendingRevokes.poll();
        if (asked == null) {
            return;
        }
        Set<TaskId> dropped = Set.of(ids);
        for (TaskId id : asked) {
            ComputationState c = computations.get(id.computation());
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
        dispatch();
        if (remoteIdle > 0) {
            revokeForRemoteIdle(); // at once: the neighbours report again only when their need changes
        }
    }

    /** Applies one completion reported by {@code p} (null for a task run on the server). */
    public void completed(ProducerState p, Completion completion) {
        counters.completionsReceived++;
        ComputationState c = computations.get(completion.id().computation());
        TaskEntry e = c == null ? null : c.tasks.get(completion.id());
        if (e != null && e.isReady() && p != null && !e.heldBy(p)) {
            // Only a holder may complete a task: a completion for a task this producer was never given is refused,
            // and not counted as an execution.
            counters.completionsRefused++;
            return;
        }
        if (audit != null) {
            audit.executed(completion.id());
        }
        if (c != null) {
            c.executed();
            tallied.add(c);
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
            if (completion.keeps() && p != null) {
                for (TaskEnvelope child : completion.spawned()) {
                    if (Completion.keepable(child)) {
                        outbox.unkeep(p, child.id()); // it kept copies of tasks that are not stored by this run
                    }
                }
            }
            return;
        }
        // Apply the task's effects and its completion as one step.
        if (audit != null) {
            audit.applied(completion.id());
        }
        c.tasks.remove(e.envelope.id());
        c.storedBytes -= e.bytes();
        if (log.active()) {
            log.record(new MirrorOp.Remove(e.envelope.id()));
        }
        outbox.applied(completion.id()); // after the change is recorded: it commits with the batch that carries it
        ready.remove(e);
        revocable.remove(e);
        late.gone(e);
        if (e.revoke == TaskEntry.Revoke.REQUESTED) {
            revokesOutstanding--;
        }
        late.completed(completion.execNanos());
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
                claim(p, child);
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
            storeValue(c, v, homeOf(v.to(), e), p, i == completion.claimedValue());
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
     * Records {@code p}'s result of a validated computation's task (the digest of its effects, or
     * {@link Opinions#FAILED}); true once {@code c.quorum} producers of different owners returned equal digests, and
     * the result may apply (any of the agreeing ones: they are equal). Until then the task waits outside the ready
     * heap for a producer of another owner; a producer whose result the quorum contradicts is reported. When more
     * results than the quorum plus one disagree, the task cannot be validated and its computation fails.
     */
    private boolean validated(ComputationState c, TaskEntry e, ProducerState p, byte[] digest) {
        e.removeHolder(p);
        p.held.remove(e);
        if (e.holderCount() == 0) {
            late.gone(e);
        }
        ready.remove(e);
        revocable.remove(e);
        if (e.revoke == TaskEntry.Revoke.REQUESTED) {
            e.revoke = TaskEntry.Revoke.NONE;
            revokesOutstanding--;
        }
        if (e.opinions == null) {
            e.opinions = new Opinions(c.quorum);
        }
        switch (e.opinions.add(p.owner, p.name, digest)) {
            case Opinions.Verdict.SameOwner same -> {
                counters.opinionsOfSameOwner++;
                awaitOpinion(e);
                return false;
            }
            case Opinions.Verdict.Waiting waiting -> {
                awaitOpinion(e);
                return false;
            }
            case Opinions.Verdict.Agreed agreed -> {
                for (Opinions.Opinion o : agreed.contradicted()) {
                    counters.validationDissents++;
                    dissenter.accept(o, e.envelope.id());
                }
                e.opinions = null;
                awaitingOpinion.remove(e);
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

    /** {@code e} waits for a producer of an owner that has not run it yet (unless a holder is running it). */
    private void awaitOpinion(TaskEntry e) {
        if (e.holderCount() == 0) {
            awaitingOpinion.add(e);
        }
    }

    /**
     * Gives each hungry producer the oldest validated task awaiting an opinion that no producer of its owner has
     * run. These go before fresh tasks: the computation waits for them.
     */
    private void giveOpinions() {
        if (awaitingOpinion.isEmpty()) {
            return;
        }
        for (ProducerState p : new ArrayList<>(demand.hungry)) {
            for (Iterator<TaskEntry> it = awaitingOpinion.iterator(); it.hasNext(); ) {
                TaskEntry e = it.next();
                ComputationState c = computations.get(e.envelope.id().computation());
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

    private void fail(ComputationState c, String taskId, String reason, long nowNanos) {
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
            ComputationSummary s = c.summary();
            log.record(new MirrorOp.Finished(c.id, c.result, c.failedTask, c.failure, s.tasks(), s.executions(),
                    s.t1Nanos(), s.wallNanos()));
        }
        end(c);
        deliver(c);
    }

    /** The scheduler's notion of "now" for completion timestamps; set by the conductor before each command. */
    public void tick(long nowNanos) {
        this.now = nowNanos;
        ready.tick(nowNanos);
    }

    // ---------------------------------------------------------------- internals

    /**
     * Stores a task with the inputs it has so far ({@code inputs} may be null: none yet); {@code how} it came here
     * is for audit trails. Returns its new entry, or null if it was a duplicate.
     */
    private TaskEntry store(ComputationState c, TaskEnvelope envelope, int home, byte[][] inputs, String how) {
        if (c.tasks.containsKey(envelope.id())) {
            counters.duplicatesDiscarded++;
            return null;
        }
        outbox.stored(envelope.id(), how);
        TaskEntry e = new TaskEntry(envelope, seq++, home);
        if (inputs != null) {
            for (int i = 0; i < Math.min(inputs.length, e.arity()); i++) {
                if (inputs[i] != null) {
                    e.setInput(i, inputs[i]);
                }
            }
        }
        c.tasks.put(envelope.id(), e);
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
     * The producer that completed a task is already running one of its ready children, or the task its value just
     * made ready (it claimed it): record it as that task's holder, as if assigned to an idle worker, without
     * sending it.
     */
    private void claim(ProducerState p, TaskEntry e) {
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
     * Stores value {@code v}, sent by producer {@code from} (null: routed from another server). {@code claimed}:
     * {@code from} says it is already running the target, because this value completes it and it kept a copy.
     */
    private void storeValue(ComputationState c, ValueEnvelope v, int home, ProducerState from, boolean claimed) {
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
        int where = resolve.applyAsInt(home);
        if (where != self) {
            outbox.route(where, new RoutedPayload.Value(c.id, v, c.untold()));
            return;
        }
        TaskEntry target = to.target().computation() == c.id ? c.tasks.get(to.target()) : null;
        if (target == null || to.argNo() >= target.arity()) {
            counters.duplicatesDiscarded++; // the target already completed, or never existed
            return;
        }
        if (!target.setInput(to.argNo(), v.value())) {
            if (!target.envelope.firstInputWins() && !Arrays.equals(target.input(to.argNo()), v.value())) {
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
        for (ProducerState keeper : target.keepers()) {
            if (keeper != from) {
                // A keeper learns of every input it did not send. One that completes the task tells it the task
                // is handed out here (a Drop could overtake the task's own Assign to the keeper and cancel it).
                outbox.input(keeper, v);
                counters.inputsForwarded++;
            }
        }
        if (target.isReady()) {
            boolean claimValid = claimed && from != null && target.keptBy(from);
            target.clearKeepers();
            becameReady(target);
            if (claimValid && target.heapIndex >= 0) {
                claim(from, target);
            }
        }
    }

    /**
     * {@code p} now holds task {@code e}: if {@code e}'s successor lives here and waits for inputs, {@code p}
     * keeps a copy of it, so that if {@code e}'s value is the last one missing, {@code p} runs the successor at
     * once instead of waiting for the server to hand it out (a round trip per composition level of F(n)).
     */
    private void keepSuccessor(ProducerState p, TaskEntry e) {
        Continuation to = e.envelope.continuation();
        if (to.isConsumer() || resolve.applyAsInt(e.home) != self) {
            return;
        }
        ComputationState c = computations.get(to.target().computation());
        TaskEntry successor = c == null || c.quorum > 1 ? null : c.tasks.get(to.target());
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
            ComputationState c = computations.get(e.envelope.id().computation());
            if (c != null && c.phase == ComputationState.Phase.RUNNING && c.tasks.get(e.envelope.id()) == e) {
                fail(c, e.envelope.id().toString(), "task " + e.envelope.id() + " with its inputs takes " + e.bytes()
                        + " bytes, over the message limit of " + (maxReadyTaskBytes + 4096) + " bytes "
                        + "(-Dcx.maxMessageBytes on every process): send smaller values, or split the data over "
                        + "more tasks", now);
            }
        }
        oversized.clear();
    }

    /** Drops every remaining task of a finished computation and tells the producers. */
    private void end(ComputationState c) {
        tallied.remove(c);
        users.uncharge(c);
        for (TaskEntry e : c.tasks.values()) {
            ready.remove(e);
            revocable.remove(e);
            late.gone(e);
            if (e.revoke == TaskEntry.Revoke.REQUESTED) {
                revokesOutstanding--;
            }
            for (int i = 0; i < e.holderCount(); i++) {
                e.holder(i).held.remove(e);
            }
        }
        c.tasks.clear();
        c.storedBytes = 0;
        outbox.computationEnded(c.id, c.origin == self);
    }

    /** Sends a finished computation's outcome to its consumer and watchers, if it has any. */
    private void deliver(ComputationState c) {
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
     * Hands ready tasks to hungry producers, in four steps:
     * <ol>
     *   <li>fresh tasks (no holder) to producers with idle workers, round robin;</li>
     *   <li>fresh tasks to prefetch credit, round robin;</li>
     *   <li>if idle workers remain, ask holders of prefetched copies to give up those they have not started
     *       (revoke): a released task is fresh again and goes to an idle worker in step 1 when the answer arrives.
     *       A task handed to an idle worker starts at once and is never revoked;</li>
     *   <li>eager scheduling: an idle worker gets a copy of a task another producer is running, but only once that
     *       task is late (running longer than {@link #latenessNanos()}), so that duplicates chase stragglers and
     *       lost producers instead of tying up workers that new tasks will soon need.</li>
     * </ol>
     */
    public void dispatch() {
        dispatch(false);
    }

    /**
     * Periodic check (the conductor calls it every few milliseconds): also hands late tasks to idle workers. Kept
     * out of the per-message path because finding late tasks walks the heap once per idle producer.
     */
    public void dispatchWithEagerCopies() {
        dispatch(true);
    }

    private void dispatch(boolean eager) {
        if (!oversized.isEmpty()) {
            failOversized();
        }
        if (remoteIdle > 0 && ready.freshCount() > 0) {
            seeder.run();
        }
        if (demand.hungry.isEmpty()) {
            return;
        }
        giveOpinions();
        if (ready.isEmpty()) {
            return;
        }
        giveFresh(demand.hungryIdle, false);
        if (demand.idleWaiting() == 0) {
            if (remoteIdle == 0) {
                giveFresh(demand.hungry, true); // prefetch only once no worker here or next door is waiting
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
     * both last. Each step is O(log n): the served producer leaves the queue, and {@link ProducerDemand#set} (called by
     * {@link #assign}) puts it back at the end if it still wants more.
     */
    private void giveFresh(LinkedHashSet<ProducerState> queue, boolean prefetch) {
        while (!queue.isEmpty()) {
            TaskEntry top = ready.peek();
            if (top == null || top.holderCount() > 0) {
                return;
            }
            ProducerState p = queue.iterator().next();
            queue.remove(p);
            assign(p, top, prefetch);
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
            e.revoke = TaskEntry.Revoke.REQUESTED;
            revokesOutstanding++;
            // One release makes the task fresh: ask its first holder only.
            asks.computeIfAbsent(e.holder(0), h -> new ArrayList<>()).add(e.envelope.id());
            counters.revokesSent++;
        }
        for (Map.Entry<ProducerState, List<TaskId>> ask : asks.entrySet()) {
            TaskId[] ids = ask.getValue().toArray(TaskId[]::new);
            ask.getKey().pendingRevokes.add(ids);
            outbox.revoke(ask.getKey(), ids);
        }
    }

    /**
     * Gives each producer with an idle worker a copy of the oldest late task it does not hold, one copy per task
     * each time it is late. O(1) when no task is late; otherwise it walks the late tasks only.
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

    /** When a running task counts as late ({@link LateTasks#latenessNanos}). */
    long latenessNanos() {
        return late.latenessNanos();
    }

    /** @param prefetch given on prefetch credit (may wait behind a running task) rather than to an idle worker */
    private void assign(ProducerState p, TaskEntry e, boolean prefetch) {
        if (e.holderCount() == 0) {
            e.prefetched = prefetch;
            if (prefetch && e.revoke == TaskEntry.Revoke.NONE) {
                revocable.add(e);
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
        demand.set(p, p.credit - 1, Math.max(0, p.idleWorkers - 1));
        p.tasksAssigned++;
        counters.tasksAssigned++;
        outbox.assign(p, e.toReadyTask());
        keepSuccessor(p, e);
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
        tallied.add(c);
        storeValue(c, routed.value(), self, null, false);
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
        for (ComputationState c : new ArrayList<>(computations.values())) {
            if (c.origin == self && c.phase == ComputationState.Phase.RUNNING) {
                fail(c, "", reason, now); // no single task is to blame
            }
        }
    }

    /** Ready tasks diffused here from neighbour {@code from}. */
    public void accept(RoutedPayload.Transfer transfer, int from) {
        ComputationState c = branch(transfer.computation(), transfer.origin(), transfer.bundle());
        if (c == null) {
            return;
        }
        if (c.origin != self && c.tasks.isEmpty()) { // none here: the sender knows whose it is and how urgent
            c.owner = transfer.owner(); // the ledger counts no tasks here for it yet (none of an owner ""'s)
            reprioritize(c, transfer.priority());
        }
        c.seeded.add(from);
        c.add(transfer.tally());
        tallied.add(c);
        ReadyTask[] tasks = transfer.tasks();
        for (int i = 0; i < tasks.length; i++) {
            store(c, tasks[i].task(), transfer.homes()[i], tasks[i].inputs(), "transferred");
        }
        counters.tasksDiffusedIn += tasks.length;
        dispatch();
    }

    /** This server's record of computation {@code id}, created for tasks that came from elsewhere; null if over. */
    private ComputationState branch(long id, int origin, String bundle) {
        ComputationState c = computations.get(id);
        if (c == null && forgotten.contains(id)) {
            return null; // over: its late tasks are dropped
        }
        if (c == null) {
            c = new ComputationState(id, now, null);
            c.origin = resolve.applyAsInt(origin);
            computations.put(id, c);
            setBundle(c, bundle);
        }
        return c.phase == ComputationState.Phase.RUNNING ? c : null;
    }

    private void setBundle(ComputationState c, String bundle) {
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

    /**
     * Takes up to {@code max} fresh ready tasks (no producer holds them: "a task that has been downloaded stays")
     * to diffuse to another server, best first, grouped by computation.
     */
    public List<RoutedPayload.Transfer> takeFresh(int max) {
        Map<Long, List<TaskEntry>> taken = new HashMap<>();
        List<TaskEntry> validatedHere = new ArrayList<>();
        for (int n = 0; n < max; n++) {
            TaskEntry top = ready.peek();
            if (top == null || top.holderCount() > 0) {
                break;
            }
            ready.remove(top);
            ComputationState c = computations.get(top.envelope.id().computation());
            if (c.quorum > 1) {
                validatedHere.add(top); // validated where it was submitted: its opinions are kept there
                continue;
            }
            c.tasks.remove(top.envelope.id());
            c.storedBytes -= top.bytes();
            if (log.active()) {
                log.record(new MirrorOp.Remove(top.envelope.id()));
            }
            taken.computeIfAbsent(c.id, k -> new ArrayList<>()).add(top);
        }
        List<RoutedPayload.Transfer> transfers = new ArrayList<>(taken.size());
        for (Map.Entry<Long, List<TaskEntry>> group : taken.entrySet()) {
            List<TaskEntry> entries = group.getValue();
            ReadyTask[] tasks = new ReadyTask[entries.size()];
            int[] homes = new int[entries.size()];
            for (int i = 0; i < tasks.length; i++) {
                tasks[i] = entries.get(i).toReadyTask();
                homes[i] = entries.get(i).home;
            }
            ComputationState c = computations.get(group.getKey());
            transfers.add(new RoutedPayload.Transfer(c.id, c.origin, c.bundle, c.owner, c.priority, tasks, homes,
                    c.untold()));
            counters.tasksDiffusedOut += tasks.length;
        }
        for (TaskEntry e : validatedHere) {
            ready.add(e);
        }
        return transfers;
    }

    /**
     * A seed for neighbour {@code server}: the best fresh task, if it was spawned here, no task of its computation
     * has passed between this server and {@code server} yet, and the computation is young here (fewer completions
     * here than this server has workers); null otherwise.
     */
    RoutedPayload.Transfer takeSeed(int server) {
        TaskEntry top = ready.peek();
        if (top == null || top.holderCount() > 0 || !top.spawnedHere) {
            return null;
        }
        ComputationState c = computations.get(top.envelope.id().computation());
        if (c.completedHere >= Math.max(1, demand.workers()) || !c.seeded.add(server)) {
            return null;
        }
        return takeFresh(1).getFirst();
    }

    /** Tasks of {@code computation} went to, or came from, {@code server}: it needs no seed of it from here. */
    void seeded(long computation, int server) {
        ComputationState c = computations.get(computation);
        if (c != null) {
            c.seeded.add(server);
        }
    }

    void setSeeder(Runnable seeder) {
        this.seeder = seeder;
    }

    /** Prefetched copies no producer has started, as far as this server knows: what it could revoke. */
    public int queuedCount() {
        return revocable.size();
    }

    /** Unassigned ready tasks: what diffusion may move. */
    public int freshCount() {
        return ready.freshCount();
    }

    /** Tasks the producers asked for and were not given yet (idle workers and prefetch credit). */
    public int demand() {
        return demand.credit();
    }

    /**
     * Neighbouring servers report this many idle workers they have no task for (see {@link #dispatch}). Fresh tasks
     * go to them (diffusion); if there are too few, prefetched copies that producers here have not started are
     * revoked, so that they become fresh and can go too: otherwise the end of a computation waits on tasks queued
     * behind running ones here while workers next door have nothing.
     */
    void setRemoteIdle(int idle) {
        boolean released = idle == 0 && remoteIdle > 0;
        remoteIdle = idle;
        if (released) {
            dispatch();
        } else if (idle > 0) {
            revokeForRemoteIdle();
        }
    }

    /**
     * Asks for as many unstarted prefetched copies as idle workers here and next door lack fresh tasks. The server
     * cannot tell which prefetched copies have started since (a producer starts one whenever its running task ends),
     * so revokes are refused now and then; each answer asks again for what is still missing.
     */
    private void revokeForRemoteIdle() {
        revokeUnstarted(remoteIdle + demand.idleWaiting() - ready.freshCount() - revokesOutstanding);
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
            forget(id); // tasks of it may still be on their way here
        } else if (c.origin != self) {
            end(c);
            computations.remove(id);
            forget(id);
            if (log.active()) {
                log.record(new MirrorOp.Forget(id));
            }
        }
    }

    /**
     * Records for the mirrors how the counts of every computation whose counts changed since the last call grew
     * ({@link MirrorOp.Tally}); called before each batch is cut, so a tally rides in the batch with the values that
     * pass it on.
     */
    void logTallies() {
        if (meter != null && log.active()) {
            // The usage of this burst's completions goes to the mirrors with them.
            List<org.cx.wire.Usage> rows = meter.drainExecutions();
            if (!rows.isEmpty()) {
                usageBatches.delta(rows, log);
            }
        }
        if (log.active()) {
            for (ComputationState c : tallied) {
                MirrorOp.Tally t = c.logTally(false);
                if (t != null) {
                    log.record(t);
                }
            }
        }
        tallied.clear();
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

    /** Every change needed to rebuild this server's replicated state from nothing, for a new mirror. */
    void snapshot(List<MirrorOp> ops) {
        tallied.clear();
        for (ComputationState c : computations.values()) {
            MirrorOp.Tally untold = c.logTally(true);
            if (untold != null) {
                ops.add(untold);
            }
            if (c.origin == self) {
                ops.add(new MirrorOp.Started(c.id, c.submittedNanos, c.owner, c.quorum, c.priority,
                        c.timeoutNanos));
                if (c.phase != ComputationState.Phase.RUNNING) {
                    ComputationSummary s = c.summary();
                    ops.add(new MirrorOp.Finished(c.id, c.result, c.failedTask, c.failure, s.tasks(), s.executions(),
                            s.t1Nanos(), s.wallNanos()));
                }
            }
            if (!c.bundle.isEmpty()) {
                ops.add(new MirrorOp.Code(c.id, c.bundle));
            }
            for (TaskEntry e : c.tasks.values()) {
                ops.add(new MirrorOp.Put(e.envelope, e.home, c.origin, e.inputs()));
            }
        }
        usageBatches.snapshot(ops);
    }

    /**
     * Takes over a failed server's computations and tasks from this server's mirror copy of it. Its consumers
     * collect here; its producers' copies are gone, so every task is fresh.
     */
    void adopt(Replica copy) {
        for (Replica.Computation rc : copy.computations()) {
            ComputationState c = computations.get(rc.id());
            if (c == null) {
                c = new ComputationState(rc.id(), rc.submittedNanos(), null);
                computations.put(rc.id(), c);
                setBundle(c, copy.bundleOf(rc.id()));
            }
            c.origin = self;
            c.owner = rc.owner();
            c.quorum = rc.quorum();
            reprioritize(c, rc.priority());
            c.timeoutNanos = rc.timeoutNanos();
            if (c.consumer == null && c.abandonedSince < 0) {
                c.abandonedSince = now; // its consumer comes back here, or the computation is abandoned
            }
            MirrorOp.Finished f = rc.finished();
            if (f != null && c.phase == ComputationState.Phase.RUNNING) {
                c.phase = f.result() != null ? ComputationState.Phase.DONE : ComputationState.Phase.FAILED;
                c.result = f.result();
                c.failedTask = f.failedTask();
                c.failure = f.failure();
                c.finishedNanos = now;
                c.finishedWith(f);
            }
        }
        for (MirrorOp.Put put : copy.tasks()) {
            long id = put.task().id().computation();
            ComputationState c = branch(id, put.origin(), copy.bundleOf(id));
            if (c != null) {
                store(c, put.task(), put.home(), put.inputs(), "adopted");
            }
        }
        counters.tasksAdopted += copy.tasks().size();
        usageBatches.adopt(copy.usage(), copy.usageOpen(), log);
        for (Map.Entry<Long, RoutedPayload.Tally> untold : copy.untold().entrySet()) {
            ComputationState c = computations.get(untold.getKey());
            if (c != null) { // else the counts could go nowhere: the failed server had nothing left of it
                c.add(untold.getValue());
                tallied.add(c);
            }
        }
        dispatch();
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
