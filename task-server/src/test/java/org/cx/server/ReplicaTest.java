package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.junit.jupiter.api.Test;

class ReplicaTest {
    private static final TaskId ROOT = TaskId.root(9);

    private static MirrorOp put(int child) {
        TaskEnvelope task = new TaskEnvelope(ROOT.child(child), Continuation.CONSUMER, 0, 0, false, new byte[] {1});
        return new MirrorOp.Put(task, 1, 1, new byte[0][]);
    }

    @Test
    void appliesBatchesInOrderAndIgnoresOnesAlreadyApplied() {
        Replica copy = new Replica();
        assertEquals(Replica.Fit.STALE, copy.offer(1, false, new MirrorOp[] {put(0)}), "nothing before a snapshot");
        assertEquals(Replica.Fit.APPLIED, copy.offer(2, true, new MirrorOp[] {put(0)}));
        assertEquals(Replica.Fit.APPLIED, copy.offer(3, false, new MirrorOp[] {put(1)}));
        assertEquals(Replica.Fit.STALE, copy.offer(3, false, new MirrorOp[] {put(2)}));
        assertEquals(2, copy.taskCount());
        assertTrue(copy.complete());
    }

    /** A batch lost with a broken link must not be skipped: the copy would lack its changes (a task moved on). */
    @Test
    void aBatchAfterAMissingOneLeavesTheCopyIncompleteUntilTheNextSnapshot() {
        Replica copy = new Replica();
        copy.offer(1, true, new MirrorOp[] {put(0)});
        assertEquals(Replica.Fit.GAP, copy.offer(3, false, new MirrorOp[] {new MirrorOp.Remove(ROOT.child(0))}));
        assertFalse(copy.complete(), "never taken over as if whole");
        assertEquals(1, copy.taskCount(), "the batch after the gap is not applied");
        assertEquals(Replica.Fit.STALE, copy.offer(4, false, new MirrorOp[] {put(1)}));
        assertEquals(Replica.Fit.APPLIED, copy.offer(5, true, new MirrorOp[] {put(2)}));
        assertTrue(copy.complete());
        assertEquals(1, copy.taskCount());
    }

    /**
     * The counts an heir passes on for a failed server: what it counted (tallies), less what its values and
     * transfers already carried; a snapshot's tally is the whole untold part, and its messages are not subtracted
     * again.
     */
    @Test
    void untoldCountsAreTalliedLessWhatSentMessagesCarried() {
        Replica copy = new Replica();
        RoutedPayload.Value value = new RoutedPayload.Value(9, new ValueEnvelope(Continuation.to(ROOT.child(0), 0),
                new byte[] {1}), new RoutedPayload.Tally(3, 4, 300));
        copy.offer(1, true, new MirrorOp[] {new MirrorOp.Tally(9, new RoutedPayload.Tally(5, 6, 500)), new MirrorOp.Send(1, 2, 1, value)});
        assertEquals(new RoutedPayload.Tally(5, 6, 500), copy.untold().get(9L), "a snapshot's messages were told");
        copy.offer(2, false, new MirrorOp[] {new MirrorOp.Tally(9, new RoutedPayload.Tally(1, 2, 100)), new MirrorOp.Send(1, 2, 2, value)});
        assertEquals(new RoutedPayload.Tally(3, 4, 300), copy.untold().get(9L));
        copy.offer(3, false, new MirrorOp[] {new MirrorOp.Forget(9)});
        assertTrue(copy.untold().isEmpty(), "nothing is kept for a computation that ended");
    }
}
