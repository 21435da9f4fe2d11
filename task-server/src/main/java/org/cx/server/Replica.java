package org.cx.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.cx.api.TaskId;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;
import org.cx.wire.ValueRef;

/**
 * This server's mirror copy of another server's replicated state, kept by applying that server's changes in order.
 * If the other server fails and this one is chosen to take over, {@link Scheduler#adopt} and
 * {@link ServerNetwork} turn the copy into live state.
 */
final class Replica {
    /** A computation submitted at the mirrored server. */
    record Computation(long id, long submittedNanos, String owner, int quorum, int priority, long timeoutNanos,
                       MirrorOp.Finished finished) {
        Computation with(MirrorOp.Finished f) {
            return new Computation(id, submittedNanos, owner, quorum, priority, timeoutNanos, f);
        }

        Computation with(int newPriority) {
            return new Computation(id, submittedNanos, owner, quorum, newPriority, timeoutNanos, finished);
        }
    }

    private final Map<Long, Computation> computations = new HashMap<>();

    /** Whether the mirrored server has computation {@code id}. */
    boolean has(long id) {
        return computations.containsKey(id);
    }
    private final Map<TaskId, MirrorOp.Put> tasks = new LinkedHashMap<>();
    /** Unacknowledged exactly-once messages by channel ({@link ServerNetwork#channel}), then sequence number. */
    private final Map<Long, TreeMap<Long, RoutedPayload>> outgoing = new HashMap<>();
    /** Highest sequence number received and applied, by channel. */
    private final Map<Long, Long> received = new HashMap<>();
    /** Computation → the counts the mirrored server had not passed on ({@link MirrorOp.Tally}). */
    private final Map<Long, RoutedPayload.Tally> untold = new HashMap<>();
    /** Computation → code bundle hash, for computations that have one. */
    private final Map<Long, String> bundles = new HashMap<>();
    /** Usage batches the mirrored server sealed and the accounting service has not acknowledged, by id. */
    private final Map<String, org.cx.wire.Usage[]> usage = new LinkedHashMap<>();
    /** Usage of completions the mirrored server applied since it last sealed a batch. */
    private final List<org.cx.wire.Usage> usageOpen = new ArrayList<>();
    /** The copy started from a snapshot, so it is complete. */
    private boolean complete;
    private long lastSeq;

    /** Adds to {@code found} those of {@code refs} that a task or an unacknowledged message of this copy reads. */
    void valuesAmong(Set<ValueRef> refs, Set<ValueRef> found) {
        Consumer<ValueRef> check = r -> {
            if (refs.contains(r)) {
                found.add(r);
            }
        };
        tasks.values().forEach(put -> ValueRef.forEachIn(put, check));
        outgoing.values().forEach(byseq -> byseq.values().forEach(p -> ValueRef.forEachIn(p, check)));
    }

    boolean complete() {
        return complete;
    }

    long lastSeq() {
        return lastSeq;
    }

    /** What a mirror makes of a batch. */
    enum Fit {
        /** Applied: the next batch, or a snapshot. */
        APPLIED,
        /** Ignored: before this copy's snapshot, or applied already. */
        STALE,
        /** Refused: a batch before it is missing, so the copy is incomplete until the next snapshot. */
        GAP,
        /** Kept aside: a part of a snapshot, applied with the others when the last arrives. */
        PART
    }

    /** Applies batch {@code seq} if it is the next one; a snapshot replaces everything. */
    Fit offer(long seq, boolean snapshot, MirrorOp[] ops) {
        if (!snapshot) {
            if (!complete || seq <= lastSeq) {
                return Fit.STALE;
            }
            if (seq != lastSeq + 1) {
                complete = false;
                return Fit.GAP;
            }
        }
        apply(seq, snapshot, ops);
        return Fit.APPLIED;
    }

    private void apply(long seq, boolean snapshot, MirrorOp[] ops) {
        if (snapshot) {
            computations.clear();
            tasks.clear();
            outgoing.clear();
            received.clear();
            bundles.clear();
            untold.clear();
            usage.clear();
            usageOpen.clear();
            complete = true;
        }
        lastSeq = seq;
        for (MirrorOp op : ops) {
            apply(op);
            if (!snapshot && op instanceof MirrorOp.Send send) {
                passedOn(send.payload()); // a snapshot's tallies already leave out what its messages carry
            }
        }
    }

    /** The server sent {@code payload}: the counts it carries are no longer the server's to pass on. */
    private void passedOn(RoutedPayload payload) {
        RoutedPayload.Tally t = payload.tally();
        if (!t.equals(RoutedPayload.Tally.NONE)) {
            untold.merge(payload.computation(), t.negated(), RoutedPayload.Tally::plus);
        }
    }

    private void apply(MirrorOp op) {
        switch (op) {
            case MirrorOp.Put put -> tasks.put(put.task().id(), put);
            case MirrorOp.Input in -> {
                MirrorOp.Put put = tasks.get(in.id());
                if (put != null && in.argNo() < put.inputs().length) {
                    // a new op: the one received stays as it came (a message is never changed once read)
                    byte[][] inputs = put.inputs().clone();
                    inputs[in.argNo()] = in.value();
                    tasks.put(in.id(), new MirrorOp.Put(put.task(), put.home(), put.origin(), inputs));
                }
            }
            case MirrorOp.Remove r -> tasks.remove(r.id());
            case MirrorOp.Started st -> computations.put(st.id(), new Computation(st.id(), st.submittedNanos(), st.owner(),
                    st.quorum(), st.priority(), st.timeoutNanos(), null));
            case MirrorOp.Reprioritized r -> computations.computeIfPresent(r.id(), (id, c) -> c.with(r.priority()));
            case MirrorOp.Finished f -> {
                Computation c = computations.get(f.id());
                if (c != null) {
                    computations.put(f.id(), c.with(f));
                }
                tasks.keySet().removeIf(id -> id.computation() == f.id());
                untold.remove(f.id());
            }
            case MirrorOp.Forget f -> {
                computations.remove(f.id());
                bundles.remove(f.id());
                untold.remove(f.id());
                tasks.keySet().removeIf(id -> id.computation() == f.id());
            }
            case MirrorOp.Send send -> outgoing.computeIfAbsent(ExactlyOnceChannels.channel(send.from(), send.to()),
                    k -> new TreeMap<>()).put(send.seq(), send.payload());
            case MirrorOp.Acked acked -> {
                TreeMap<Long, RoutedPayload> pending = outgoing.get(ExactlyOnceChannels.channel(acked.from(), acked.to()));
                if (pending != null) {
                    pending.headMap(acked.seq(), true).clear();
                }
            }
            case MirrorOp.Received r -> received.merge(ExactlyOnceChannels.channel(r.from(), r.to()), r.seq(), Math::max);
            case MirrorOp.Code code -> bundles.put(code.id(), code.bundle());
            case MirrorOp.Tally t -> untold.merge(t.id(), t.counts(), RoutedPayload.Tally::plus);
            case MirrorOp.UsageDelta u -> usageOpen.addAll(List.of(u.rows()));
            case MirrorOp.UsageBatch u -> {
                usage.put(u.id(), u.rows());
                if (u.sealsDeltas()) {
                    usageOpen.clear();
                }
            }
            case MirrorOp.UsageAcked a -> usage.remove(a.id());
        }
    }

    /** Per computation, the counts the mirrored server had not passed on to another server. */
    Map<Long, RoutedPayload.Tally> untold() {
        return untold;
    }

    /** The code bundle of computation {@code id} ({@code ""}: the class path). */
    String bundleOf(long id) {
        return bundles.getOrDefault(id, "");
    }

    /** The mirrored server's usage batches not acknowledged, in the order it sealed them. */
    Map<String, org.cx.wire.Usage[]> usage() {
        return usage;
    }

    /** The mirrored server's usage since it last sealed a batch. */
    List<org.cx.wire.Usage> usageOpen() {
        return usageOpen;
    }

    Collection<Computation> computations() {
        return computations.values();
    }

    List<MirrorOp.Put> tasks() {
        return new ArrayList<>(tasks.values());
    }

    Map<Long, TreeMap<Long, RoutedPayload>> outgoing() {
        return outgoing;
    }

    Map<Long, Long> received() {
        return received;
    }

    int taskCount() {
        return tasks.size();
    }
}
