package org.cx.server;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.TaskEnvelope;

/**
 * The computations submitted to this server (their origin), as their consumers see them: submit, collect, cancel,
 * prioritize, list and diagnose, and the limits that end them (timeouts, abandonment, expired results). A part of
 * the {@link Scheduler}, single-threaded with it: each command changes the scheduler's state whole.
 */
public final class Submissions {
    private static final int LOSSES_REMEMBERED = 4;

    private final Scheduler s;
    /** Draws computation ids: unguessable on a real server, repeatable in a simulation. */
    private final RandomGenerator ids;
    private final long resultRetentionNanos;
    /** The network's last few losses of state, most recent last: a consumer asking for a lost computation is told. */
    private final ArrayDeque<String> losses = new ArrayDeque<>();

    Submissions(Scheduler scheduler, RandomGenerator ids, long resultRetentionNanos) {
        this.s = scheduler;
        this.ids = ids;
        this.resultRetentionNanos = resultRetentionNanos;
    }

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
        } while (id == 0 || s.computations.containsKey(id));
        ComputationState c = new ComputationState(id, nowNanos, consumer);
        c.origin = s.self();
        c.owner = consumer.owner();
        c.quorum = quorum;
        c.priority = priority;
        c.timeoutNanos = timeoutNanos;
        s.computations.put(id, c);
        s.outbox.computationStarted(id);
        if (s.log.active()) {
            s.log.record(new MirrorOp.Started(id, nowNanos, c.owner, c.quorum, c.priority, c.timeoutNanos));
        }
        s.setBundle(c, bundle);
        TaskEnvelope named = new TaskEnvelope(TaskId.root(id), Continuation.CONSUMER, root.arity(), root.priority(),
                root.onServer(), root.body());
        s.store(c, named, s.self(), null, "submitted");
        s.charge(c);
        s.counters.computationsSubmitted++;
        s.dispatch();
        return id;
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
        for (ComputationState c : s.computations.values()) {
            if (c.origin == s.self() && c.phase == ComputationState.Phase.RUNNING && owner.equals(c.owner)) {
                running++;
            }
        }
        return s.users.submissionRefusal(owner, running);
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
        ComputationState c = s.computations.get(computation);
        if (c == null || c.origin != s.self() || !c.owner.equals(consumer.owner())) {
            return false;
        }
        if (watch) {
            c.watchers.add(consumer);
        } else {
            c.consumer = consumer;
            c.abandonedSince = -1;
        }
        s.deliver(c);
        return true;
    }

    /**
     * Why a consumer's {@code computation} is not here: unknown, collected or expired, or perhaps lost with a server
     * and every copy of its state, if the network lost any since this server started.
     */
    public String unknown(long computation) {
        String why = "no computation " + Long.toHexString(computation) + " on this server: unknown, already collected, "
                + "or its result expired";
        return losses.isEmpty() ? why : why + "; or lost: " + String.join("; ", losses);
    }

    /** The network lost some computations' state, for {@code reason} (which names the server). */
    void stateLost(String reason) {
        if (!losses.contains(reason)) {
            losses.add(reason);
            if (losses.size() > LOSSES_REMEMBERED) {
                losses.poll();
            }
        }
    }

    /** The consumer has the result; forget the computation. */
    public void collected(ConsumerHandle consumer, long computation) {
        ComputationState c = s.computations.get(computation);
        if (c != null && c.phase != ComputationState.Phase.RUNNING && c.owner.equals(consumer.owner())) {
            s.forget(c);
        }
    }

    /** A consumer's connection closed: its computations run on, and their results wait to be collected. */
    public void consumerGone(ConsumerHandle consumer) {
        for (ComputationState c : s.computations.values()) {
            c.watchers.remove(consumer);
            if (c.consumer == consumer) {
                c.consumer = null;
                c.abandonedSince = s.now();
            }
        }
    }

    /**
     * The owner of {@code computation} cancels it: it fails with that reason, which ends it on every server and
     * producer (their unstarted tasks dropped, running ones' effects refused). Returns why it cannot be, or null.
     */
    public String cancel(ConsumerHandle consumer, long computation, long nowNanos) {
        ComputationState c = s.computations.get(computation);
        String refusal = refusal(consumer, computation, c);
        return refusal != null ? refusal : end(c, "cancelled" + (c.owner.isEmpty() ? "" : " by " + c.owner),
                nowNanos);
    }

    /**
     * An administrator cancels {@code computation}, whoever owns it (a JMX operation, which only an admin credential
     * may invoke): as {@link #cancel}. Returns why it cannot be, or null.
     */
    public String cancelAsAdministrator(long computation, long nowNanos) {
        ComputationState c = s.computations.get(computation);
        if (c == null) {
            return "no computation " + Long.toHexString(computation) + " on this server";
        }
        String over = over(computation, c);
        return over != null ? over : end(c, "cancelled by an administrator", nowNanos);
    }

    private String end(ComputationState c, String reason, long nowNanos) {
        s.counters.computationsCancelled++;
        s.fail(c, "", reason, nowNanos);
        s.dispatch();
        return null;
    }

    /** Why {@code consumer} may not act on {@code computation} ({@code c}, maybe null): none of its, or over. */
    private static String refusal(ConsumerHandle consumer, long computation, ComputationState c) {
        if (c == null || !c.owner.equals(consumer.owner())) {
            return "no computation " + Long.toHexString(computation) + " of this user on this server";
        }
        return over(computation, c);
    }

    private static String over(long computation, ComputationState c) {
        return c.phase == ComputationState.Phase.RUNNING ? null
                : "computation " + Long.toHexString(computation) + " is over already (" + c.phase + ")";
    }

    /**
     * The owner of {@code computation} gives it a new priority among its computations; every other server holding
     * its tasks is told. Returns why it cannot be, or null.
     */
    public String prioritize(ConsumerHandle consumer, long computation, int priority) {
        ComputationState c = s.computations.get(computation);
        String refusal = refusal(consumer, computation, c);
        if (refusal == null && c.origin != s.self()) {
            refusal = "computation " + Long.toHexString(computation) + " was not submitted to this server";
        }
        if (refusal != null) {
            return refusal;
        }
        s.reprioritize(c, priority);
        if (s.log.active()) {
            s.log.record(new MirrorOp.Reprioritized(computation, priority));
        }
        s.outbox.reprioritized(computation, priority);
        s.dispatch();
        return null;
    }

    /**
     * This user's computations this server delivers, running or with a result not collected yet, oldest first:
     * each as a diagnosis without waiting tasks listed.
     */
    public Message.ComputationList list(ConsumerHandle consumer) {
        return new Message.ComputationList(s.computations.values().stream()
                .filter(c -> c.origin == s.self() && c.owner.equals(consumer.owner()))
                .sorted(java.util.Comparator.comparingLong(c -> c.submittedNanos))
                .map(c -> c.diagnosis(s.now(), 0))
                .toArray(Message.Diagnosis[]::new));
    }

    /**
     * Where {@code computation} stands on this server, for its owner: its tasks ready, running and waiting, and the
     * inputs the first {@link org.cx.api.Diagnosis#LISTED} waiting ones lack (oldest first). An unknown computation,
     * or another user's, has an empty phase.
     */
    public Message.Diagnosis diagnose(ConsumerHandle consumer, long computation) {
        ComputationState c = s.computations.get(computation);
        if (c == null || !c.owner.equals(consumer.owner())) {
            return Message.Diagnosis.unknown(computation);
        }
        return c.diagnosis(s.now(), org.cx.api.Diagnosis.LISTED);
    }

    /** {@link #diagnose(ConsumerHandle, long)} for an operator, whoever's it is; null if it is unknown. */
    public Message.Diagnosis diagnose(long computation) {
        ComputationState c = s.computations.get(computation);
        return c == null ? null : c.diagnosis(s.now(), org.cx.api.Diagnosis.LISTED);
    }

    /**
     * Fails the computations past a limit ({@link Deadlines}) and tasks running longer than the task time limit, and
     * forgets finished computations whose results were not collected within the retention time; returns how many
     * it forgot.
     */
    public int expire(long nowNanos) {
        UserQuotas quotas = s.users.quotas();
        Map<ComputationState, String> overdue = new LinkedHashMap<>();
        for (ComputationState c : s.computations.values()) {
            String why = Deadlines.overdue(c, s.self(), quotas, nowNanos);
            if (why != null) {
                overdue.put(c, why);
            }
        }
        overdue.forEach((c, why) -> {
            c.overTimeReported = true; // a server other than the origin reports it once
            s.fail(c, "", why, nowNanos);
        });
        for (TaskEntry e : s.late.runningSince(nowNanos - quotas.taskTime().toNanos())) {
            ComputationState c = s.computations.get(e.computation);
            if (c != null && c.phase == ComputationState.Phase.RUNNING && c.tasks.get(e.envelope.id()) == e) {
                s.fail(c, e.envelope.id().toString(), "task " + e.envelope.id() + " has run for more than "
                        + quotas.taskTime().toSeconds() + " s without finishing (--task-time-limit): it may loop",
                        nowNanos);
            }
        }
        List<ComputationState> expired = s.computations.values().stream()
                .filter(c -> c.phase != ComputationState.Phase.RUNNING
                        && nowNanos - c.finishedNanos > resultRetentionNanos)
                .toList();
        expired.forEach(s::forget);
        s.counters.resultsExpired += expired.size();
        return expired.size();
    }
}
