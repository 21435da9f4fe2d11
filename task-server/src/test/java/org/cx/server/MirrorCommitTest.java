package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.junit.jupiter.api.Test;

class MirrorCommitTest {

    private static final int SELF = 1;
    private static final MirrorOp CHANGE = new MirrorOp.Forget(7L);

    private final List<String> released = new ArrayList<>();

    private Runnable output(String name) {
        return () -> released.add(name);
    }

    private static MirrorCommit mirroredBy(int... members) {
        MirrorCommit commit = new MirrorCommit();
        List<Integer> group = new ArrayList<>();
        for (int m : members) {
            group.add(m);
        }
        commit.regroup(List.of(), group, id -> true);
        return commit;
    }

    @Test
    void withoutMirrorsOutputRunsAtOnceAndNoBatchIsCut() {
        MirrorCommit commit = new MirrorCommit();
        assertFalse(commit.active());
        commit.afterCommit(output("a"));
        assertEquals(List.of("a"), released);
        assertNull(commit.cut(SELF));
    }

    @Test
    void outputWaitsForEveryMemberToAcknowledgeTheBatchOfItsChange() {
        MirrorCommit commit = mirroredBy(2, 3);
        commit.record(CHANGE);
        commit.afterCommit(output("result"));
        Message.Mirror batch = commit.cut(SELF);
        assertNotNull(batch);
        assertEquals(1, batch.seq());
        assertTrue(batch.awaited(), "output waits on it: the mirrors acknowledge it at once");
        assertEquals(1, batch.ops().length);
        assertTrue(commit.acknowledged(2, 1));
        assertEquals(List.of(), released, "one of two members has it");
        assertTrue(commit.acknowledged(3, 1));
        assertEquals(List.of("result"), released);
    }

    @Test
    void aBatchNobodyWaitsOnIsNotAwaitedAndLaterOutputAsksForAnEmptyAwaitedOne() {
        MirrorCommit commit = mirroredBy(2);
        commit.record(CHANGE);
        Message.Mirror quiet = commit.cut(SELF);
        assertFalse(quiet.awaited());
        commit.afterCommit(output("late"));
        Message.Mirror ask = commit.cut(SELF);
        assertNotNull(ask, "an empty batch asks for the acknowledgement the output needs");
        assertTrue(ask.awaited());
        assertEquals(0, ask.ops().length);
        assertEquals(2, ask.seq());
        commit.acknowledged(2, 1);
        assertEquals(List.of("late"), released, "the output waited on batch 1, which carried its change");
        assertNull(commit.cut(SELF), "nothing new, nothing waiting");
    }

    @Test
    void outputsRunInTheOrderTheyWereHeldEvenWhenALaterOneIsCommittedFirst() {
        MirrorCommit commit = mirroredBy(2);
        commit.record(CHANGE);
        commit.afterCommit(output("first"));
        commit.cut(SELF);
        commit.afterCommit(output("second")); // nothing new recorded: waits on batch 1 too, behind "first"
        commit.record(CHANGE);
        commit.afterCommit(output("third"));
        commit.cut(SELF);
        commit.acknowledged(2, 2);
        assertEquals(List.of("first", "second", "third"), released);
    }

    @Test
    void aLateAcknowledgementFromANonMemberIsIgnored() {
        MirrorCommit commit = mirroredBy(2);
        assertFalse(commit.acknowledged(9, 5));
    }

    @Test
    void formerMembersCountUntilTheNewGroupHasTheSnapshotAndAreThenReleased() {
        MirrorCommit commit = mirroredBy(2);
        commit.regroup(List.of(2), List.of(3), id -> true);
        assertEquals(Set.of(2, 3), commit.members(), "the former member keeps getting batches meanwhile");
        assertTrue(commit.releasePending());
        Message.Mirror snapshot = commit.snapshot(SELF, List.of(CHANGE)).getFirst();
        assertTrue(snapshot.snapshot() && snapshot.awaited());
        commit.afterCommit(output("after snapshot"));
        assertFalse(commit.groupHasSnapshot(List.of(3)));
        commit.acknowledged(3, snapshot.seq());
        assertTrue(commit.groupHasSnapshot(List.of(3)));
        assertEquals(List.of(), released, "the former member has not acknowledged: it still counts");
        assertEquals(List.of(2), commit.releaseFormer(List.of(3)));
        assertEquals(Set.of(3), commit.members());
        assertEquals(List.of("after snapshot"), released, "released members no longer hold output back");
    }

    @Test
    void aFormerMemberBackInTheGroupIsNotReleased() {
        MirrorCommit commit = mirroredBy(2);
        commit.regroup(List.of(2), List.of(3), id -> true);
        commit.regroup(List.of(3), List.of(2, 3), id -> true);
        assertFalse(commit.releasePending());
        assertEquals(List.of(), commit.releaseFormer(List.of(2, 3)));
        assertEquals(Set.of(2, 3), commit.members());
    }

    @Test
    void aMemberThatLeftTheNetworkIsDroppedAtOnce() {
        MirrorCommit commit = mirroredBy(2, 3);
        commit.record(CHANGE);
        commit.afterCommit(output("x"));
        commit.cut(SELF);
        commit.acknowledged(3, 1);
        commit.regroup(List.of(2, 3), List.of(3), id -> id != 2);
        commit.releaseCommitted();
        assertEquals(List.of("x"), released);
        assertFalse(commit.releasePending());
    }

    @Test
    void aLostLinkToAMemberMakesTheNextBatchASnapshotOnce() {
        MirrorCommit commit = mirroredBy(2);
        commit.linkLost(5);
        assertFalse(commit.snapshotDue(), "not a member");
        commit.linkLost(2);
        assertTrue(commit.snapshotDue());
        assertFalse(commit.snapshotDue());
    }

    @Test
    void aSnapshotReplacesTheChangesRecordedBeforeIt() {
        MirrorCommit commit = mirroredBy(2);
        commit.record(CHANGE);
        List<Message.Mirror> snapshot = commit.snapshot(SELF, List.of(CHANGE, CHANGE));
        assertEquals(1, snapshot.size(), "small: one part");
        assertEquals(1, snapshot.getFirst().seq());
        assertNull(commit.cut(SELF), "the recorded change went with the snapshot");
    }

    @Test
    void aSnapshotTooLargeForOneMessageGoesInPartsOfOneNumberTheLastSayingSo() {
        MirrorCommit commit = new MirrorCommit(1000);
        commit.regroup(List.of(), List.of(2), id -> true);
        MirrorOp big = new MirrorOp.Input(org.cx.api.TaskId.root(1), 0, new byte[600]);
        List<Message.Mirror> parts = commit.snapshot(SELF, List.of(big, big, big, CHANGE));
        assertEquals(3, parts.size(), "about 1000 bytes a part: " + parts.stream().map(p -> p.ops().length).toList());
        assertTrue(parts.stream().allMatch(p -> p.seq() == 1 && p.snapshot() && p.awaited()));
        assertEquals(List.of(true, true, false), parts.stream().map(Message.Mirror::more).toList());
        assertEquals(4, parts.stream().mapToInt(p -> p.ops().length).sum(), "every change, once, in order");
        commit.afterCommit(output("after the snapshot"));
        commit.acknowledged(2, 1);
        assertTrue(commit.groupHasSnapshot(List.of(2)));
    }
}
