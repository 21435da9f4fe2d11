package org.cx.boxed;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.cx.api.Task;
import org.cx.api.TaskContext;

/** Tasks for the worker pool's claims, in a package the allow-list lets come from the wire. */
public final class ClaimingTasks {
    public static CountDownLatch entered;
    public static CountDownLatch release;
    public static final AtomicInteger CHILD_RUNS = new AtomicInteger();

    private ClaimingTasks() {
    }

    public static void reset() {
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        CHILD_RUNS.set(0);
    }

    /** Waits to be let go, then stores a ready child: the task its worker claims next. */
    public static final class Held extends Task {
        @Override
        public void execute(TaskContext context) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            context.storeTask(new Child(), context.continuation());
        }
    }

    public static final class Child extends Task {
        @Override
        public void execute(TaskContext context) {
            CHILD_RUNS.incrementAndGet();
            context.sendResult(1L);
        }
    }

    public static final class Plain extends Task {
        @Override
        public void execute(TaskContext context) {
            context.sendResult(2L);
        }
    }
}
