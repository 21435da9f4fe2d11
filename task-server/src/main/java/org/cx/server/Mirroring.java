package org.cx.server;

import java.util.ArrayList;
import java.util.List;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mirroring with output commit, both ways, for one server of the production network: this server's changes go to
 * its mirror group as numbered batches after each burst ({@link #flush}), output waits for their acknowledgements
 * ({@link #afterCommit}), a new group gets a snapshot and former members are released once it holds it; the batches
 * of the servers this one mirrors are applied to its copies of them and acknowledged. Decisions are
 * {@link MirrorCommit}'s and {@link MirrorCopies}'; this class carries them out on the server's event loop.
 */
final class Mirroring implements StateLog {
    private static final Logger LOG = LoggerFactory.getLogger(Mirroring.class);

    private final ServerNetwork network;
    private final Scheduler scheduler;
    private final ServerNetwork.Host host;
    private final DutyCycle cycle;
    private final long heartbeatNanos;
    private final MirrorCommit commit = new MirrorCommit();
    private final MirrorCopies<PeerConnection> copies = new MirrorCopies<>();
    /** The mirror group as of the last topology applied (the root changes its tree before it applies one). */
    private List<Integer> appliedGroup = List.of();
    /** Former members are released a few heartbeats after the new group has the snapshot. */
    private boolean releaseScheduled;

    Mirroring(ServerNetwork network, Scheduler scheduler, ServerNetwork.Host host, DutyCycle cycle,
              long heartbeatNanos) {
        this.network = network;
        this.scheduler = scheduler;
        this.host = host;
        this.cycle = cycle;
        this.heartbeatNanos = heartbeatNanos;
    }

    /** This server's copies of the servers it mirrors. */
    MirrorCopies<PeerConnection> copies() {
        return copies;
    }

    MirrorCommit commit() {
        return commit;
    }

    @Override
    public boolean active() {
        return commit.active();
    }

    @Override
    public void record(MirrorOp op) {
        commit.record(op);
    }

    /**
     * Runs {@code output} once every change made so far is on every mirror: at once when nobody mirrors this server
     * or nothing is unacknowledged.
     */
    void afterCommit(Runnable output) {
        commit.afterCommit(output);
    }

    /** Sends the changes of this burst to the mirrors as one batch (call after each burst of messages). */
    void flush() {
        scheduler.replication().logTallies();
        if (commit.snapshotDue()) {
            sendSnapshot(); // it carries the pending changes too
        }
        Message.Mirror batch = commit.cut(network.self());
        if (batch != null) {
            for (int member : commit.members()) {
                network.send(member, batch);
            }
        }
        commit.releaseCommitted();
    }

    /**
     * A topology was applied: the mirror group is now {@code group}. New members get a snapshot (so does the whole
     * group after this server {@code adopted} a failed server's state); old ones keep getting changes until the new
     * ones have it.
     */
    void regroup(List<Integer> group, boolean adopted, java.util.function.IntPredicate isMember) {
        List<Integer> oldGroup = appliedGroup;
        appliedGroup = group;
        commit.regroup(oldGroup, group, isMember);
        if ((adopted || !group.equals(oldGroup)) && commit.active()) {
            sendSnapshot();
        }
        scheduleRelease();
    }

    /** Sends the whole replicated state to every mirror; they replace their copies. */
    private void sendSnapshot() {
        List<MirrorOp> ops = new ArrayList<>();
        scheduler.replication().snapshot(ops);
        network.routing().snapshot(ops);
        List<Message.Mirror> parts = commit.snapshot(network.self(), ops);
        for (int member : commit.members()) {
            parts.forEach(part -> network.send(member, part));
        }
        LOG.debug("server {} sent a snapshot of {} changes to {}", network.self(), ops.size(), commit.members());
    }

    /** Output whose changes the mirrors now hold may go. */
    void releaseCommitted() {
        commit.releaseCommitted();
    }

    /** The link to server {@code id} closed: batches on it may be lost (it gets a snapshot next). */
    void linkLost(int id) {
        commit.linkLost(id);
    }

    /** A batch of changes of a server this one mirrors. */
    void onMirror(Message.Mirror m, PeerConnection from) {
        MirrorCopies.Offer offer = copies.offer(m, from);
        if (offer.fit() == Replica.Fit.GAP) {
            // The sender lost a link with batches on it; it sends a snapshot next.
            LOG.warn("server {}: batch {} from server {} does not follow batch {}; its copy is incomplete until the "
                    + "next snapshot", network.self(), m.seq(), m.from(), offer.lastSeq());
        }
        if (offer.fit() != Replica.Fit.APPLIED) {
            return;
        }
        for (MirrorOp op : offer.applied()) {
            if (op instanceof MirrorOp.Code code) {
                host.mirroredBundle(code.id(), code.bundle());
            }
        }
        if (offer.ackNow() && network.joined()) {
            from.send(new Message.MirrorAck(m.from(), network.self(), m.seq()));
        } else if (offer.ackNow()) {
            copies.defer(m.from(), m.seq(), from); // a joiner has no id to sign with yet: once it has one
        }
    }

    /** Acknowledges the batches nobody waited on (periodically: one acknowledgement covers all before it). */
    void sendDeferredAcks() {
        if (!network.joined()) {
            return;
        }
        for (MirrorCopies.Deferred<PeerConnection> d : copies.takeDeferred()) {
            d.link().send(new Message.MirrorAck(d.from(), network.self(), d.seq()));
        }
    }

    void onMirrorAck(Message.MirrorAck ack) {
        if (ack.from() != network.self() || !commit.acknowledged(ack.by(), ack.seq())) {
            return;
        }
        scheduleRelease();
    }

    /**
     * Former members are released once the new group holds the copy: they hold back every commit until then (one
     * that never had the copy never acknowledges). Called on each acknowledgement and after each regroup (the group
     * may hold the copy already, and then no acknowledgement would come to release them).
     */
    private void scheduleRelease() {
        if (commit.releasePending() && !releaseScheduled && commit.groupHasSnapshot(network.mirrorGroup())) {
            // Release the former members only once the root has heard (in heartbeats) that the new ones hold the
            // copy, so that it never picks a former member whose copy is gone as the heir.
            releaseScheduled = true;
            cycle.after(3 * heartbeatNanos, this::releaseFormerMembers);
        }
    }

    private void releaseFormerMembers() {
        releaseScheduled = false;
        List<Integer> group = network.mirrorGroup();
        if (network.evictedHere() || !commit.groupHasSnapshot(group)) {
            return; // the group changed again meanwhile; a later ack schedules the release
        }
        for (int old : commit.releaseFormer(group)) {
            network.send(old, new Message.MirrorRelease(network.self()));
        }
    }
}
