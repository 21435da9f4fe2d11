package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

class TaskCacheTest {

    private static ReadyTask task(int i, long priority) {
        return new ReadyTask(new TaskEnvelope(TaskId.root(1).child(i), Continuation.CONSUMER, 0, priority, false,
                new byte[0]), new byte[0][]);
    }

    private static ReadyTask task(int i) {
        return task(i, 0);
    }

    @Test
    void workersTakeTheHighestPriorityFirst() throws Exception {
        TaskCache cache = new TaskCache(() -> { });
        cache.add(List.of(task(1, 2), task(2, 5), task(3, 3)));
        assertEquals(TaskId.root(1).child(2), cache.take(0).task().id());
        assertEquals(TaskId.root(1).child(3), cache.take(0).task().id());
        assertEquals(TaskId.root(1).child(1), cache.take(0).task().id());
    }

    @Test
    void computationsTakeTurnsWhateverTheirTasksPriorities() throws Exception {
        TaskCache cache = new TaskCache(() -> { });
        ReadyTask[] big = new ReadyTask[3];
        for (int i = 0; i < big.length; i++) {
            big[i] = new ReadyTask(new TaskEnvelope(TaskId.root(7).child(i), Continuation.CONSUMER, 0, 100 + i,
                    false, new byte[0]), new byte[0][]);
        }
        cache.add(List.of(big));
        cache.add(List.of(task(1, 2), task(2, 5))); // computation 1: lower priorities, arrived later
        assertEquals(TaskId.root(7).child(2), cache.take(0).task().id(), "computation 7 came first: its best task");
        assertEquals(TaskId.root(1).child(2), cache.take(0).task().id(), "then computation 1's turn, its best");
        assertEquals(TaskId.root(7).child(1), cache.take(0).task().id());
        assertEquals(TaskId.root(1).child(1), cache.take(0).task().id());
        assertEquals(TaskId.root(7).child(0), cache.take(0).task().id(), "computation 1 is out: 7 goes on alone");
        cache.drop(new TaskId[] {TaskId.root(7).child(0)}); // taken already: dropping it changes nothing
        assertEquals(0, cache.size());
    }

    @Test
    void aWorkerThatWaitsAcrossAFailoverTakesTheNewServersTaskUnderTheNewConnection() throws Exception {
        TaskCache cache = new TaskCache(() -> { });
        CompletableFuture<TaskCache.Taken> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return cache.takeUnder(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (cache.idleWorkers() == 0) {
            Thread.onSpinWait(); // the worker waits on the empty cache
        }
        cache.clear(); // the connection is lost while it waits
        ReadyTask fromHeir = task(1);
        cache.add(List.of(fromHeir));
        assertSame(fromHeir, taken.get().task());
        assertEquals(cache.connection(), taken.get().connection(), "its completion goes to the new server");
    }

    @Test
    void aTaskTakenBeforeTheConnectionIsLostKeepsTheOldOne() throws Exception {
        TaskCache cache = new TaskCache(() -> { });
        cache.add(List.of(task(1)));
        TaskCache.Taken taken = cache.takeUnder(0);
        cache.clear();
        assertEquals(taken.connection() + 1, cache.connection(), "its completion is discarded");
    }
}
