package org.cx.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.ValueRef;

/**
 * The copies one server holds of the servers it mirrors, and the acknowledgements it owes them. No I/O: the link to
 * acknowledge on is whatever the caller passes ({@code L}).
 *
 * <h2>Steps</h2> (the mirror's side of "Mirror a change" in docs/architecture.md)
 * <ol>
 *   <li>A batch is applied to the sender's copy only if it follows the last one applied, or is a snapshot
 *       ({@link Replica#offer}); after a gap the copy is incomplete (never adopted, not counted as tolerance) until
 *       the next snapshot.</li>
 *   <li>An awaited batch or a snapshot is acknowledged at once ({@link Offer#ackNow}); another is acknowledged with
 *       the next {@link #takeDeferred}, one acknowledgement covering every batch before it.</li>
 *   <li>A copy is given up when its server releases it, or taken when this server adopts it after a failure; nothing
 *       is acknowledged for it after that.</li>
 * </ol>
 *
 * @param <L> the link a batch came on, to acknowledge it on later
 */
final class MirrorCopies<L> {

    /** What became of an offered batch: how it fit, whether to acknowledge it now, and the changes applied. */
    record Offer(Replica.Fit fit, boolean ackNow, long lastSeq, MirrorOp[] applied) {
    }

    /** The parts of a snapshot received so far, before its last. */
    private record Parts(long seq, List<MirrorOp> ops) {
    }

    /** A batch applied and not acknowledged yet: the last one from its sender, and the link it came on. */
    record Deferred<L>(int from, long seq, L link) {
    }

    private final Map<Integer, Replica> copies = new HashMap<>();
    private final Map<Integer, Deferred<L>> deferred = new HashMap<>();
    /** Snapshots arriving in parts, by sender. */
    private final Map<Integer, Parts> parts = new HashMap<>();

    /**
     * Batch {@code m} arrived on {@code link}: applied to its sender's copy if it fits; a part of a snapshot is kept
     * until the last part, and then the whole snapshot is applied at once.
     */
    Offer offer(Message.Mirror m, L link) {
        Replica copy = copies.computeIfAbsent(m.from(), k -> new Replica());
        MirrorOp[] ops = m.ops();
        Parts before = parts.remove(m.from());
        if (m.snapshot()) {
            if (before != null && before.seq() == m.seq()) {
                List<MirrorOp> all = new ArrayList<>(before.ops());
                all.addAll(List.of(ops));
                ops = all.toArray(MirrorOp[]::new);
            }
            if (m.more()) {
                parts.put(m.from(), new Parts(m.seq(), new ArrayList<>(List.of(ops))));
                return new Offer(Replica.Fit.PART, false, copy.lastSeq(), new MirrorOp[0]);
            }
        }
        Replica.Fit fit = copy.offer(m.seq(), m.snapshot(), ops);
        boolean now = false;
        if (fit == Replica.Fit.APPLIED) {
            if (m.awaited() || m.snapshot()) {
                deferred.remove(m.from());
                now = true;
            } else {
                deferred.put(m.from(), new Deferred<>(m.from(), m.seq(), link));
            }
        }
        return new Offer(fit, now, copy.lastSeq(), fit == Replica.Fit.APPLIED ? ops : new MirrorOp[0]);
    }

    /** Owes an acknowledgement of batch {@code seq} from {@code from} until the next {@link #takeDeferred}. */
    void defer(int from, long seq, L link) {
        deferred.put(from, new Deferred<>(from, seq, link));
    }

    /** The acknowledgements owed for batches nobody waited on; each sender's latest covers the ones before it. */
    List<Deferred<L>> takeDeferred() {
        List<Deferred<L>> owed = new ArrayList<>(deferred.values());
        deferred.clear();
        return owed;
    }

    /** Server {@code from} no longer needs this copy (it was released, or it is taken over): forget it. */
    Replica remove(int from) {
        deferred.remove(from);
        parts.remove(from);
        return copies.remove(from);
    }

    /** The last batch of {@code id}'s complete copy here, or -1 if this server holds no complete copy of it. */
    long completeSeq(int id) {
        return holdsComplete(id) ? copies.get(id).lastSeq() : -1;
    }

    /** Whether this server holds a complete copy of {@code id}: it could take over from it. */
    boolean holdsComplete(int id) {
        Replica copy = copies.get(id);
        return copy != null && copy.complete();
    }

    /** The servers this one holds a copy of, complete or not. */
    Set<Integer> held() {
        return copies.keySet();
    }

    /**
     * Those of {@code refs} that a copy held here reads (a task's input, a message it has yet to see acknowledged):
     * this server keeps them, as it would need them if it took that copy over.
     */
    Set<ValueRef> valuesAmong(Collection<ValueRef> refs) {
        Set<ValueRef> wanted = new HashSet<>(refs);
        Set<ValueRef> found = new HashSet<>();
        copies.values().forEach(copy -> copy.valuesAmong(wanted, found));
        parts.values().forEach(part -> part.ops().forEach(op -> ValueRef.forEachIn(op, r -> {
            if (wanted.contains(r)) {
                found.add(r);
            }
        })));
        return found;
    }

    /** Whether one of the copies has computation {@code id}. */
    boolean mirrors(long id) {
        return copies.values().stream().anyMatch(r -> r.has(id));
    }

    /** The servers whose complete copy this one holds, with the last batch of each: for heartbeats. */
    Map<Integer, Long> complete() {
        Map<Integer, Long> complete = new HashMap<>();
        for (Map.Entry<Integer, Replica> e : copies.entrySet()) {
            if (e.getValue().complete()) {
                complete.put(e.getKey(), e.getValue().lastSeq());
            }
        }
        return complete;
    }
}
