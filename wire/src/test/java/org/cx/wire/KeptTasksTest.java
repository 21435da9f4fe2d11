package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.junit.jupiter.api.Test;

class KeptTasksTest {
    private final TaskId root = TaskId.root(7);
    private final TaskId sum = root.child(0);

    private static TaskEnvelope task(TaskId id, int arity, boolean onServer) {
        return new TaskEnvelope(id, Continuation.CONSUMER, arity, 0, onServer, new byte[] {1});
    }

    private static ValueEnvelope value(TaskId to, int argNo, int v) {
        return new ValueEnvelope(Continuation.to(to, argNo), new byte[] {(byte) v});
    }

    @Test
    void ownValueThatCompletesAKeptTaskHandsItOverWithEveryInputInOrder() {
        KeptTasks kept = new KeptTasks(16);
        assertTrue(kept.keepAll(new TaskEnvelope[] {task(sum, 2, false), task(root.child(1), 0, false)}));
        assertEquals(1, kept.size(), "only the task that waits for inputs");
        kept.forwarded(new ValueEnvelope[] {value(sum, 1, 5)});
        ReadyTask ready = kept.supply(value(sum, 0, 3));
        assertNotNull(ready);
        assertEquals(sum, ready.task().id());
        assertArrayEquals(new byte[][] {{3}, {5}}, ready.inputs());
        assertEquals(0, kept.size());
    }

    @Test
    void aForwardedValueNeverStartsATaskItDropsIt() {
        KeptTasks kept = new KeptTasks(16);
        kept.keepAll(new TaskEnvelope[] {task(sum, 2, false)});
        assertNull(kept.supply(value(sum, 0, 3)), "one input still missing");
        kept.forwarded(new ValueEnvelope[] {value(sum, 1, 5)});
        assertEquals(0, kept.size(), "the server hands it out");
        assertNull(kept.supply(value(sum, 1, 5)));
    }

    @Test
    void aDuplicateInputIsIgnored() {
        KeptTasks kept = new KeptTasks(16);
        kept.keepAll(new TaskEnvelope[] {task(sum, 2, false)});
        assertNull(kept.supply(value(sum, 0, 3)));
        assertNull(kept.supply(value(sum, 0, 3)), "a second value for input 0 does not complete it");
        assertEquals(1, kept.size());
    }

    @Test
    void keepsNothingWhenFullOrWhenTheTaskRunsOnTheServerOrWaitsForManyInputs() {
        KeptTasks kept = new KeptTasks(1);
        assertFalse(kept.keepAll(new TaskEnvelope[] {task(sum, 2, false), task(root.child(1), 2, false)}),
                "two do not fit in one place: neither is kept");
        assertEquals(0, kept.size());
        assertFalse(kept.keepAll(new TaskEnvelope[] {task(sum, 2, true)}), "executeOnServer tasks stay there");
        assertFalse(kept.keepAll(new TaskEnvelope[] {task(sum, 50, false)}), "too many inputs to forward");
        kept.keep(task(root.child(1), 1, false));
        kept.keep(task(root.child(2), 1, false));
        assertEquals(1, kept.size(), "a Keep beyond the capacity is ignored");
    }

    @Test
    void dropsByIdByComputationAndAll() {
        KeptTasks kept = new KeptTasks(16);
        TaskId other = TaskId.root(8).child(0);
        kept.keepAll(new TaskEnvelope[] {task(sum, 2, false), task(root.child(1), 2, false)});
        kept.keep(task(other, 2, false));
        kept.drop(new TaskId[] {root.child(1)});
        assertEquals(2, kept.size());
        kept.dropComputation(7);
        assertEquals(java.util.List.of(other), kept.ids());
        kept.clear();
        assertEquals(0, kept.size());
    }
}
