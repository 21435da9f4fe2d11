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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LateTasksTest {

    private static final long MS = 1_000_000L;
    private long seq;

    private TaskEntry entry() {
        return new TaskEntry(new TaskEnvelope(TaskId.root(++seq), Continuation.CONSUMER, 0, 0, false, new byte[0]),
                seq);
    }

    @ParameterizedTest(name = "completions of {0} ms then {1} ms -> late after {2} ms")
    @CsvSource({
        "1, 1, 50",        // the floor
        "40, 1, 80",       // twice the longest recent one, which decays slowly
        "91, 43, 182",
        "10, 30, 60",
    })
    void aTaskIsLateAfterTwiceTheLongestRecentExecution(long firstMs, long secondMs, long lateMs) {
        LateTasks late = new LateTasks();
        late.completed(firstMs * MS);
        late.completed(secondMs * MS);
        assertEquals(lateMs * MS, late.latenessNanos(), MS); // the decay takes off under a millisecond
    }

    @Test
    void theOldestLateTaskAProducerDoesNotHoldGetsOneCopyPerLatenessPeriod() {
        LateTasks late = new LateTasks();
        ProducerState a = new ProducerState(1, "a", 1);
        ProducerState b = new ProducerState(2, "b", 1);
        TaskEntry first = entry();
        TaskEntry second = entry();
        first.addHolder(a);
        second.addHolder(b);
        late.started(first, 0);
        late.started(second, 10 * MS);
        late.started(first, 20 * MS); // already known to run: its clock does not restart
        assertFalse(late.anyLate(50 * MS - 1));
        assertTrue(late.anyLate(50 * MS));
        assertNull(late.lateFor(a, 50 * MS), "a holds the only late task");
        assertSame(first, late.lateFor(b, 50 * MS));
        assertSame(second, late.lateFor(a, 60 * MS));
        late.copied(first, 60 * MS);
        assertNull(late.lateFor(b, 100 * MS), "b holds second, and first's clock restarted at 60 ms");
        assertSame(first, late.lateFor(b, 110 * MS));
    }

    @Test
    void aTaskThatStoppedOrWentIsNoLongerWatched() {
        LateTasks late = new LateTasks();
        TaskEntry e = entry();
        late.started(e, 0);
        assertEquals(1, late.size());
        late.stopped(e);
        assertEquals(Long.MAX_VALUE, e.runningSinceNanos);
        assertFalse(late.anyLate(Long.MAX_VALUE / 2));
        late.started(e, 5 * MS);
        late.gone(e);
        assertEquals(0, late.size());
    }
}
