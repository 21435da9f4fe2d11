package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

/**
 * A task's link to its successor's entry finds that entry while it is here, and never one that left; a server's task
 * time counts what it holds, however often counts pass through it.
 */
class ComputationStateTest {
    private final ComputationState c = new ComputationState(7, 0, null);
    private final TaskId root = TaskId.root(7);
    private long seq;

    private TaskEntry entry(TaskId id, Continuation to, int arity) {
        return new TaskEntry(new TaskEnvelope(id, to, arity, 0, false, new byte[0]), seq++);
    }

    @Test
    void aChildStoredAfterItsCompositionIsLinkedToIt() {
        TaskEntry sum = entry(root.child(0), Continuation.CONSUMER, 2);
        TaskEntry left = entry(root.child(1), Continuation.to(root.child(0), 0), 0);
        assertTrue(c.add(sum));
        assertTrue(c.add(left));
        assertSame(sum, left.successor);
        assertSame(sum, c.target(root.child(0), left));
        assertFalse(c.add(entry(root.child(1), Continuation.to(root.child(0), 0), 0)), "a task is stored once");
    }

    @Test
    void aChildStoredFirstFindsItsCompositionByIdOnceItComes() {
        TaskEntry left = entry(root.child(1), Continuation.to(root.child(0), 0), 0);
        c.add(left);
        assertNull(left.successor);
        assertNull(c.target(root.child(0), left));
        TaskEntry sum = entry(root.child(0), Continuation.CONSUMER, 2);
        c.add(sum);
        assertSame(sum, c.target(root.child(0), left));
    }

    @Test
    void aLinkToAnEntryThatLeftIsVoid() {
        TaskEntry sum = entry(root.child(0), Continuation.CONSUMER, 2);
        TaskEntry left = entry(root.child(1), Continuation.to(root.child(0), 0), 0);
        c.add(sum);
        c.add(left);
        c.forget(sum); // moved to another server, say
        assertNull(c.target(root.child(0), left));
        TaskEntry back = entry(root.child(0), Continuation.CONSUMER, 2); // and adopted here again
        c.add(back);
        assertSame(back, c.target(root.child(0), left));
        c.forgetAll();
        assertTrue(back.gone && left.gone);
        assertNull(c.target(root.child(0), left));
    }

    @Test
    void aLinkNamesOnlyItsOwnTarget() {
        TaskEntry sum = entry(root.child(0), Continuation.CONSUMER, 2);
        TaskEntry other = entry(root.child(2), Continuation.CONSUMER, 1);
        TaskEntry left = entry(root.child(1), Continuation.to(root.child(0), 0), 0);
        c.add(sum);
        c.add(other);
        c.add(left);
        assertSame(other, c.target(root.child(2), left), "a value to another task is looked up by its id");
        assertNull(c.target(TaskId.root(8), left), "nor may it reach another computation's task");
    }

    @Test
    void countsThatComeBackThroughAServerAreNotCountedAgain() {
        long second = 1_000_000_000L;
        ComputationState other = new ComputationState(7, 0, null);
        c.completed(10 * second);
        for (int i = 0; i < 100; i++) { // values routed back and forth, each carrying the counts its sender holds
            other.add(c.untold());
            c.add(other.untold());
        }
        other.completed(second);
        assertEquals(10 * second, c.taskTimeNanos(), "all 10 s are held here, counted once");
        assertEquals(second, other.taskTimeNanos());
        other.add(c.untold());
        assertEquals(11 * second, other.taskTimeNanos(), "the computation's time in all, at the server holding all");
        assertEquals(0, c.taskTimeNanos());
    }
}
