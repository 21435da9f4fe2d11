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

    /** A task at {@code level} of the spawn tree that waits for {@code arity} inputs. */
    private TaskEntry entry(int level, int arity) {
        TaskId id = TaskId.root(++seq);
        for (int i = 0; i < level; i++) {
            id = id.child(0);
        }
        return new TaskEntry(new TaskEnvelope(id, Continuation.CONSUMER, arity, 0, false, new byte[0]), seq);
    }

    /** Completes a task of the kind given, known to be running for {@code turnaroundMs}, that ran {@code execMs}. */
    private void complete(LateTasks late, int level, int arity, long execMs, long turnaroundMs) {
        TaskEntry e = entry(level, arity);
        late.started(e, 0);
        late.gone(e);
        late.completed(e, execMs * MS, turnaroundMs * MS);
    }

    @ParameterizedTest(name = "{0} ms then {1} ms -> late after {2} ms")
    @CsvSource({
        "1, 1, 50",        // the floor
        "40, 1, 80",       // twice the longest recent one, which decays slowly
        "91, 43, 182",
        "10, 30, 60",
    })
    void aTaskIsLateAfterTwiceTheLongestRecentTime(long firstMs, long secondMs, long lateMs) {
        LateTasks late = new LateTasks();
        complete(late, 3, 0, firstMs, firstMs);
        complete(late, 3, 0, secondMs, secondMs);
        assertEquals(lateMs * MS, late.latenessNanos(entry(3, 0)), MS); // the decay takes off under a millisecond
    }

    @ParameterizedTest(name = "level {0}, {1} inputs, after a leaf and a merge of level 3 -> late after {2} ms")
    @CsvSource({
        "3, 0, 80",    // twice the longest: a merge's at level 3
        "3, 1, 80",
        "2, 2, 160",   // none of its kind yet: four times
        "4, 0, 160",
        "2, 0, 160",
    })
    void aTaskOfAKindNoneOfWhichCompletedIsLateAfterFourTimesTheLongest(int level, int arity, long lateMs) {
        LateTasks late = new LateTasks();
        complete(late, 3, 0, 30, 30);
        complete(late, 3, 1, 40, 40);
        assertEquals(lateMs * MS, late.latenessNanos(entry(level, arity)), MS);
    }

    @ParameterizedTest(name = "ran {0} ms, completed {1} ms after it started -> late after {2} ms")
    @CsvSource({
        "20, 90, 180",    // a large value took 70 ms to arrive: the time the server saw counts
        "30, 10, 60",     // clocks apart: the producer's time counts at least
        "20, 5000, 200",  // a producer frozen and resumed: counted as late as it was (4 x 25 ms), no more
    })
    void theTimeTheServerSawCountsUpToItsLateness(long execMs, long turnaroundMs, long lateMs) {
        LateTasks late = new LateTasks();
        complete(late, 1, 0, 25, 25);
        complete(late, 2, 0, execMs, turnaroundMs);
        assertEquals(lateMs * MS, late.latenessNanos(entry(2, 0)), MS);
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
