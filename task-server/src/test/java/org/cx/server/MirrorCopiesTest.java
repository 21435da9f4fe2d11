package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.ValueRef;
import org.junit.jupiter.api.Test;

class MirrorCopiesTest {

    private static final MirrorOp[] NONE = new MirrorOp[0];

    private static Message.Mirror batch(int from, long seq, boolean snapshot, boolean awaited) {
        return new Message.Mirror(from, seq, snapshot, awaited, NONE);
    }

    @Test
    void aSnapshotOrAnAwaitedBatchIsAcknowledgedAtOnceOthersLaterWithOneAcknowledgementEach() {
        MirrorCopies<String> copies = new MirrorCopies<>();
        MirrorCopies.Offer snapshot = copies.offer(batch(2, 1, true, true), "link-2");
        assertEquals(Replica.Fit.APPLIED, snapshot.fit());
        assertTrue(snapshot.ackNow());
        assertFalse(copies.offer(batch(2, 2, false, false), "link-2").ackNow());
        assertFalse(copies.offer(batch(2, 3, false, false), "link-2b").ackNow());
        assertEquals(List.of(new MirrorCopies.Deferred<>(2, 3, "link-2b")), copies.takeDeferred(),
                "one acknowledgement covers batches 2 and 3, on the link the last came on");
        assertEquals(List.of(), copies.takeDeferred());
        assertTrue(copies.offer(batch(2, 4, false, true), "link-2").ackNow());
        assertEquals(List.of(), copies.takeDeferred(), "the awaited batch's acknowledgement covers the earlier");
    }

    @Test
    void aBatchBeforeAnySnapshotOrAfterAGapLeavesTheCopyIncomplete() {
        MirrorCopies<String> copies = new MirrorCopies<>();
        assertEquals(Replica.Fit.STALE, copies.offer(batch(3, 1, false, true), "l").fit());
        assertFalse(copies.holdsComplete(3));
        copies.offer(batch(3, 2, true, true), "l");
        assertEquals(2, copies.completeSeq(3));
        MirrorCopies.Offer gap = copies.offer(batch(3, 4, false, true), "l");
        assertEquals(Replica.Fit.GAP, gap.fit());
        assertFalse(gap.ackNow());
        assertEquals(-1, copies.completeSeq(3), "never adopted, not counted as tolerance");
        assertEquals(Map.of(), copies.complete());
    }

    @Test
    void aSnapshotInPartsIsAppliedWholeWhenItsLastPartArrivesAndAnInterruptedOneNever() {
        MirrorCopies<String> copies = new MirrorCopies<>();
        MirrorOp[] first = {new MirrorOp.Started(9, 0, "alice", 1, 0, 0)};
        MirrorOp[] last = {new MirrorOp.Code(9, "ab".repeat(32))};
        MirrorCopies.Offer part = copies.offer(new Message.Mirror(2, 1, true, true, first, true), "l");
        assertEquals(Replica.Fit.PART, part.fit());
        assertFalse(part.ackNow());
        assertFalse(copies.holdsComplete(2), "a part is no copy");
        MirrorCopies.Offer whole = copies.offer(new Message.Mirror(2, 1, true, true, last, false), "l");
        assertEquals(Replica.Fit.APPLIED, whole.fit());
        assertTrue(whole.ackNow());
        assertEquals(2, whole.applied().length, "both parts, in order");
        assertEquals(1, copies.completeSeq(2));

        // A link broke after the first part of the next snapshot: its next snapshot starts over.
        copies.offer(new Message.Mirror(2, 5, true, true, first, true), "l");
        MirrorCopies.Offer next = copies.offer(new Message.Mirror(2, 6, true, true, last, false), "l");
        assertEquals(1, next.applied().length, "the part of snapshot 5 is not part of snapshot 6");
        assertEquals(6, copies.completeSeq(2));
    }

    @Test
    void aRemovedCopyOwesNothing() {
        MirrorCopies<String> copies = new MirrorCopies<>();
        copies.offer(batch(2, 1, true, true), "l");
        copies.offer(batch(2, 2, false, false), "l");
        assertEquals(Map.of(2, 2L), copies.complete());
        assertNotNull(copies.remove(2));
        assertEquals(List.of(), copies.takeDeferred(), "released or taken over: no late acknowledgement");
        assertFalse(copies.held().contains(2));
    }

    /**
     * The values a server must keep for the copies it holds: a task's input, a message not yet acknowledged, a part
     * of a snapshot; not once the task is gone or the message acknowledged.
     */
    @Test
    void theValuesACopyReadsAreTheInputsOfItsTasksAndOfItsUnacknowledgedMessages() {
        MirrorCopies<String> copies = new MirrorCopies<>();
        ValueRef input = new ValueRef(9, 1, 1, 2 << 20, 7);
        ValueRef sent = new ValueRef(9, 2, 2, 2 << 20, 8);
        ValueRef elsewhere = new ValueRef(9, 3, 3, 2 << 20, 9);
        List<ValueRef> asked = List.of(input, sent, elsewhere);
        TaskId task = TaskId.root(9).child(1);
        copies.offer(new Message.Mirror(2, 1, true, true, new MirrorOp[] {new MirrorOp.Started(9, 0, "alice", 1, 0, 0),
                new MirrorOp.Put(new TaskEnvelope(task, Continuation.CONSUMER, 1, 0, false, new byte[0]), 2, 2,
                        new byte[1][])}), "l");
        assertEquals(Set.of(), copies.valuesAmong(asked));
        RoutedPayload toOther = new RoutedPayload.Value(9, new ValueEnvelope(Continuation.to(TaskId.root(9).child(5), 0),
                sent.bytes()), null);
        copies.offer(new Message.Mirror(2, 2, false, true, new MirrorOp[] {new MirrorOp.Input(task, 0, input.bytes()),
                new MirrorOp.Send(2, 3, 1, toOther)}), "l");
        assertEquals(Set.of(input, sent), copies.valuesAmong(asked));
        copies.offer(new Message.Mirror(2, 3, false, true, new MirrorOp[] {new MirrorOp.Acked(2, 3, 1),
                new MirrorOp.Remove(task)}), "l");
        assertEquals(Set.of(), copies.valuesAmong(asked), "read, and acknowledged: they may go");
        copies.offer(new Message.Mirror(4, 1, true, true, new MirrorOp[] {new MirrorOp.Send(4, 3, 1, toOther)}, true),
                "l");
        assertEquals(Set.of(sent), copies.valuesAmong(asked), "a part of a snapshot counts already");
    }
}
