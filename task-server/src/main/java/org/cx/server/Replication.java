package org.cx.server;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;

/**
 * What the {@link Scheduler} gives its mirrors beyond the per-command changes it records, and what it takes over
 * from a failed server: the counts of computations that changed in a burst (ridden with the values that pass them
 * on), the snapshot a new mirror starts from, the adoption of a failed server's copy, and the usage batches sealed
 * for the accounting service until it acknowledges them.
 */
public final class Replication {
    private final Scheduler s;
    /** Computations whose counts changed since {@link #logTallies} last ran. */
    private final Set<ComputationState> tallied = new LinkedHashSet<>(); // iterated: insertion order, repeatable
    /** The computation last added to {@link #tallied}, which a burst of completions names again and again. */
    private ComputationState lastTallied;
    /** Usage sealed and not yet acknowledged by the accounting service (replicated). */
    private final UsageBatches usageBatches = new UsageBatches();

    Replication(Scheduler scheduler) {
        this.s = scheduler;
    }

    /** {@code c}'s counts changed: they go to the mirrors with the next batch. */
    void tallied(ComputationState c) {
        if (c != lastTallied) {
            tallied.add(c);
            lastTallied = c;
        }
    }

    /** {@code c} ended here: its counts go nowhere. */
    void untallied(ComputationState c) {
        tallied.remove(c);
        lastTallied = null;
    }

    /**
     * Records for the mirrors how the counts of every computation whose counts changed since the last call grew
     * ({@link MirrorOp.Tally}), and the usage of this burst's completions; called before each batch is cut, so a
     * tally rides in the batch with the values that pass it on.
     */
    void logTallies() {
        StateLog log = s.log;
        if (s.meter != null && log.active()) {
            List<org.cx.wire.Usage> rows = s.meter.drainExecutions();
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
        lastTallied = null;
    }

    /** Every change needed to rebuild this server's replicated state from nothing, for a new mirror. */
    void snapshot(List<MirrorOp> ops) {
        tallied.clear();
        lastTallied = null;
        for (ComputationState c : s.computations.values()) {
            MirrorOp.Tally untold = c.logTally(true);
            if (untold != null) {
                ops.add(untold);
            }
            if (c.origin == s.self()) {
                ops.add(new MirrorOp.Started(c.id, c.submittedNanos, c.owner, c.quorum, c.priority,
                        c.timeoutNanos));
                if (c.phase != ComputationState.Phase.RUNNING) {
                    ops.add(Scheduler.finished(c));
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
            ComputationState c = s.computations.get(rc.id());
            if (c == null) {
                c = new ComputationState(rc.id(), rc.submittedNanos(), null);
                s.computations.put(rc.id(), c);
                s.outbox.computationStarted(rc.id());
                s.setBundle(c, copy.bundleOf(rc.id()));
            }
            c.origin = s.self();
            c.owner = rc.owner();
            c.quorum = rc.quorum();
            s.reprioritize(c, rc.priority());
            c.timeoutNanos = rc.timeoutNanos();
            if (c.consumer == null && c.abandonedSince < 0) {
                c.abandonedSince = s.now(); // its consumer comes back here, or the computation is abandoned
            }
            MirrorOp.Finished f = rc.finished();
            if (f != null && c.phase == ComputationState.Phase.RUNNING) {
                c.phase = f.result() != null ? ComputationState.Phase.DONE : ComputationState.Phase.FAILED;
                c.result = f.result();
                c.failedTask = f.failedTask();
                c.failure = f.failure();
                c.finishedNanos = s.now();
                c.finishedWith(f);
                // The failed server may have crashed before it told the others: they are told again, so that what
                // they hold of it (a cancelled computation's tasks) is dropped now and not run to the end.
                s.endAdopted(c);
            } else if (c.phase == ComputationState.Phase.RUNNING && rc.priority() != 0) {
                s.outbox.reprioritized(c.id, rc.priority()); // likewise a new priority it may not have told
            }
        }
        for (MirrorOp.Put put : copy.tasks()) {
            long id = put.task().id().computation();
            ComputationState c = s.branch(id, put.origin(), copy.bundleOf(id));
            if (c != null) {
                s.store(c, put.task(), put.home(), put.inputs(), "adopted");
            }
        }
        s.counters.tasksAdopted += copy.tasks().size();
        usageBatches.adopt(copy.usage(), copy.usageOpen(), s.log);
        for (Map.Entry<Long, RoutedPayload.Tally> untold : copy.untold().entrySet()) {
            ComputationState c = s.computations.get(untold.getKey());
            if (c != null) { // else the counts could go nowhere: the failed server had nothing left of it
                c.add(untold.getValue());
                tallied.add(c);
            }
        }
        s.dispatch();
    }

    /**
     * Seals what was metered since the last call as a usage batch named {@code prefix} and a number, recorded for the
     * mirrors; returns the batches to send now (this one, and any adopted from a failed server), by id.
     */
    Map<String, org.cx.wire.Usage[]> sealUsage(String prefix, long nowNanos) {
        usageBatches.seal(prefix, s.drainUsage(nowNanos), s.log);
        return usageBatches.toSend();
    }

    /** The accounting service acknowledged usage batch {@code id}. */
    void usageAcknowledged(String id) {
        usageBatches.acknowledged(id, s.log);
    }

    /** Usage batches not yet acknowledged by the accounting service. */
    public int usageBatchesWaiting() {
        return usageBatches.size();
    }
}
