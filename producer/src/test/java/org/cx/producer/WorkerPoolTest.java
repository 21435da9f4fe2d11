package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.boxed.ClaimingTasks;
import org.cx.boxed.ClaimingTasks.Held;
import org.cx.boxed.ClaimingTasks.Plain;
import org.cx.wire.BodyCodecs;
import org.cx.wire.Completion;
import org.cx.wire.KeptTasks;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One in-process worker and no server: what it sends, and what it claims, after the task it runs is dropped. */
class WorkerPoolTest {
    private final BodyCodecs codecs = new BodyCodecs(getClass().getClassLoader());
    private final ConcurrentLinkedQueue<Message> toServer = new ConcurrentLinkedQueue<>();
    /** Released each time the worker has queued something for the server (or is about to wait for a task). */
    private final Semaphore queued = new Semaphore(0);
    private final TaskCache cache = new TaskCache(queued::release);
    private int next;

    private ReadyTask ready(Task task) {
        return new ReadyTask(new TaskEnvelope(TaskId.root(1).child(next++), Continuation.CONSUMER, 0, 0, false,
                codecs.forComputation(1).encode(task)), new byte[0][]);
    }

    /** The tasks whose completions the worker queued for the server, in order. */
    private List<TaskId> completed() {
        List<TaskId> ids = new ArrayList<>();
        for (Message m : toServer) {
            if (m instanceof Message.Completed c) {
                for (Completion done : c.completions()) {
                    ids.add(done.id());
                }
            }
        }
        return ids;
    }

    @ParameterizedTest(name = "dropped while it runs: {0}")
    @ValueSource(booleans = {true, false})
    void aTaskDroppedWhileItRunsClaimsNothing(boolean dropped) throws InterruptedException {
        ClaimingTasks.reset();
        ProducerConfig config = ProducerConfig.of(null, 1, null)
                .withBox(TaskBox.defaults().withIsolation(TaskBox.Isolation.IN_PROCESS));
        WorkerPool pool = new WorkerPool(config, cache, new KeptTasks(16), codecs,
                c -> org.cx.fs.ActingFor.plainly(""), c -> false, new IdleLog(1), new TaskTimeline(1, false),
                toServer, queued::release, new AtomicLong());
        pool.start();
        try {
            ReadyTask held = ready(new Held());
            cache.add(List.of(held));
            assertTrue(ClaimingTasks.entered.await(30, TimeUnit.SECONDS),
                    () -> "the worker did not start the task: " + toServer);
            if (dropped) {
                pool.dropped(new TaskId[] {held.task().id()});
            }
            ReadyTask plain = ready(new Plain());
            cache.add(List.of(plain));
            ClaimingTasks.release.countDown();
            while (!completed().contains(plain.task().id())) {
                assertTrue(queued.tryAcquire(30, TimeUnit.SECONDS), () -> "nothing queued for 30 s: " + toServer);
            }
            if (dropped) {
                assertEquals(List.of(held.task().id(), plain.task().id()), completed(),
                        "the dropped task's run, for the server to credit, and then the cached one");
                assertEquals(0, ClaimingTasks.CHILD_RUNS.get(), "the dropped task's child was claimed and run");
            } else {
                TaskId child = held.task().id().child(0);
                assertEquals(List.of(held.task().id(), child, plain.task().id()), completed(),
                        "the task, the child it claimed, then the cached one");
                assertEquals(1, ClaimingTasks.CHILD_RUNS.get());
            }
        } finally {
            pool.stop();
        }
    }
}
