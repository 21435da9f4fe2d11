package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.api.spi.TaskBinding;
import org.junit.jupiter.api.Test;

class TaskCacheTest {
    /** A task that is never run here. */
    static final class Noop extends Task {
        @Override
        public void execute(TaskContext context) {
        }
    }

    private static Task task(int i) {
        Task t = new Noop();
        TaskBinding.bind(t, TaskId.root(1).child(i), Continuation.CONSUMER, new Object[0]);
        return t;
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
        Task fromHeir = task(1);
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
