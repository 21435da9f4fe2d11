package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;

/**
 * Output commit for one server's mirror group: which changes went to the mirrors in which numbered batch, which
 * batch each mirror has acknowledged, and the outputs held until every mirror has the change they reveal. No I/O:
 * it says what batch to send, and runs a held output when its batch is committed.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>The scheduler records each change ({@link #record}); the changes of one burst of messages become one batch
 *       ({@link #cut}), numbered one above the last.</li>
 *   <li>An output that must not be seen before the mirrors have the changes made so far is held
 *       ({@link #afterCommit}) on the batch that will carry them.</li>
 *   <li>A batch is <em>awaited</em> when output waits on it: the mirror acknowledges it at once. Other batches are
 *       acknowledged on the mirror's next tick, one acknowledgement covering every batch before it. When output
 *       comes to wait on a change already sent unawaited, the next cut is an empty awaited batch.</li>
 *   <li>A batch is committed once every member has acknowledged it or a later one ({@link #acknowledged}); the
 *       outputs held on it run in the order they were held.</li>
 *   <li>When the group changes, new members start at batch 0 and are sent a snapshot; former members keep getting
 *       batches (and count for commit) until every new member has acknowledged the snapshot
 *       ({@link #groupHasSnapshot}), and are then released ({@link #releaseFormer}).</li>
 *   <li>A broken link to a member may have lost batches, and a mirror never applies a batch over a missing one: the
 *       next batch is then a snapshot ({@link #snapshotDue}).</li>
 * </ol>
 */
final class MirrorCommit implements StateLog {

    private long journalSeq;
    private List<MirrorOp> pending = new ArrayList<>();
    /** About the bytes of {@link #pending} encoded. */
    private long pendingBytes;
    /** About the bytes of one part of a snapshot too large for one message. */
    private final long partBytes;

    MirrorCommit() {
        this(org.cx.wire.WireConfig.maxMessageBytes() / 4);
    }

    MirrorCommit(long partBytes) {
        this.partBytes = partBytes;
    }
    /** Servers that must acknowledge a batch before it counts: the mirror group, plus former members until released. */
    private final Map<Integer, Long> acked = new HashMap<>();
    private final Set<Integer> toRelease = new HashSet<>();
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The last batch sent as awaited: its acknowledgement comes at once and releases what waits on it. */
    private long awaitedSeq;
    private long snapshotSeq;
    private boolean linkLost;

    private record Held(long seq, Runnable output) {
    }

    /** Whether anyone mirrors this server now. */
    @Override
    public boolean active() {
        return !acked.isEmpty();
    }

    @Override
    public void record(MirrorOp op) {
        pending.add(op);
        pendingBytes += bytes(op);
    }

    /** About the bytes the changes recorded since the last cut take in a batch. */
    long pendingBytes() {
        return pendingBytes;
    }

    /** About the bytes {@code op} takes encoded: its application data, and room for the rest. */
    static long bytes(MirrorOp op) {
        long data = switch (op) {
            case MirrorOp.Put p -> {
                long n = p.task().body().length;
                for (byte[] input : p.inputs() == null ? new byte[0][] : p.inputs()) {
                    n += input == null ? 0 : input.length;
                }
                yield n;
            }
            case MirrorOp.Input i -> i.value().length;
            case MirrorOp.Finished f -> f.result() == null ? 0 : f.result().length;
            case MirrorOp.Send s -> org.cx.wire.MessageEncoder.sizeHint(s.payload());
            case MirrorOp.UsageBatch u -> 128L * u.rows().length;
            case MirrorOp.UsageDelta u -> 128L * u.rows().length;
            default -> 0;
        };
        return data + 128;
    }

    /** The servers every batch goes to: the mirror group and the former members not released yet. */
    Set<Integer> members() {
        return acked.keySet();
    }

    /** The number of the last batch cut. */
    long journalSeq() {
        return journalSeq;
    }

    /**
     * Runs {@code output} once every change recorded so far is on every mirror: at once when nobody mirrors this
     * server or nothing is unacknowledged (and nothing held before it waits still).
     */
    void afterCommit(Runnable output) {
        long seq = pending.isEmpty() ? journalSeq : journalSeq + 1;
        if (seq <= committedSeq() && held.isEmpty()) {
            output.run();
        } else {
            held.add(new Held(seq, output));
        }
    }

    /** Whether the next batch must be a snapshot (a link to a member broke); clears the mark. */
    boolean snapshotDue() {
        if (linkLost && !acked.isEmpty()) {
            linkLost = false;
            return true;
        }
        return false;
    }

    /**
     * The changes recorded since the last cut as the next batch from server {@code self}, or null when there is
     * nothing to send: no change and no output waiting on a batch sent unawaited, or nobody to send to.
     */
    Message.Mirror cut(int self) {
        boolean awaited = outputWaits();
        if (pending.isEmpty() && !awaited) {
            return null;
        }
        journalSeq++;
        Message.Mirror batch = null;
        if (!acked.isEmpty()) {
            if (awaited) {
                awaitedSeq = journalSeq;
            }
            batch = new Message.Mirror(self, journalSeq, false, awaited, pending.toArray(MirrorOp[]::new));
        }
        pending = new ArrayList<>();
        pendingBytes = 0;
        return batch;
    }

    /**
     * The whole replicated state {@code state} as the next batch, a snapshot, which replaces the mirrors' copies:
     * in parts of about {@code partBytes} each if it is larger, numbered alike, the mirrors applying them together.
     * The changes recorded since the last cut are part of that state and are not sent again.
     */
    List<Message.Mirror> snapshot(int self, List<MirrorOp> state) {
        pending = new ArrayList<>();
        pendingBytes = 0;
        journalSeq++;
        snapshotSeq = journalSeq;
        awaitedSeq = journalSeq;
        List<Message.Mirror> parts = new ArrayList<>();
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < state.size(); i++) {
            bytes += bytes(state.get(i));
            if (bytes > partBytes && i > from) {
                parts.add(new Message.Mirror(self, journalSeq, true, true,
                        state.subList(from, i).toArray(MirrorOp[]::new), true));
                from = i;
                bytes = bytes(state.get(i));
            }
        }
        parts.add(new Message.Mirror(self, journalSeq, true, true,
                state.subList(from, state.size()).toArray(MirrorOp[]::new), false));
        return parts;
    }

    /** Whether output is held on a change that no batch sent as awaited covers yet. */
    private boolean outputWaits() {
        return !held.isEmpty() && held.peekLast().seq > awaitedSeq;
    }

    /**
     * Member {@code by} has applied every batch up to {@code seq}; runs the outputs that became committed. False if
     * {@code by} is not a member (a late acknowledgement from a released one).
     */
    boolean acknowledged(int by, long seq) {
        if (!acked.containsKey(by)) {
            return false;
        }
        acked.merge(by, seq, Math::max);
        releaseCommitted();
        return true;
    }

    /** Runs, in order, the held outputs whose batch every member has acknowledged. */
    void releaseCommitted() {
        long committed = committedSeq();
        while (!held.isEmpty() && held.peek().seq <= committed) {
            held.poll().output.run();
        }
    }

    private long committedSeq() {
        long committed = journalSeq;
        for (long seq : acked.values()) {
            committed = Math.min(committed, seq);
        }
        return committed;
    }

    /**
     * The mirror group is now {@code group} (it was {@code oldGroup}); {@code inNetwork} says which servers are still
     * members of the network. New members start at batch 0; former ones stay until {@link #releaseFormer}; a former
     * member back in the group (repairs in quick succession) stays.
     */
    void regroup(List<Integer> oldGroup, List<Integer> group, IntPredicate inNetwork) {
        acked.keySet().removeIf(id -> !inNetwork.test(id));
        toRelease.removeIf(id -> !inNetwork.test(id));
        for (int old : oldGroup) {
            if (!group.contains(old) && inNetwork.test(old) && acked.containsKey(old)) {
                toRelease.add(old);
            }
        }
        toRelease.removeAll(group);
        for (int member : group) {
            acked.putIfAbsent(member, 0L);
        }
    }

    /** Whether former members wait to be released. */
    boolean releasePending() {
        return !toRelease.isEmpty();
    }

    /** Whether every member of {@code group} has acknowledged the last snapshot. */
    boolean groupHasSnapshot(List<Integer> group) {
        return group.stream().allMatch(m -> acked.getOrDefault(m, 0L) >= snapshotSeq);
    }

    /** Stops sending batches to the former members not in {@code group}, and returns them (to be told so). */
    List<Integer> releaseFormer(List<Integer> group) {
        List<Integer> released = new ArrayList<>();
        for (int old : toRelease) {
            if (!group.contains(old)) {
                acked.remove(old);
                released.add(old);
            }
        }
        toRelease.clear();
        releaseCommitted();
        return released;
    }

    /** The link to server {@code id} broke: if it is a member, batches may have been lost on it. */
    void linkLost(int id) {
        linkLost |= acked.containsKey(id);
    }

    /** Each member's last acknowledged batch, for audit trails. */
    String acknowledgements() {
        return acked.toString().replace(' ', '_');
    }
}
