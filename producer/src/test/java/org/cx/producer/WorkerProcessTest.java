package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.boxed.BoxedTasks.Big;
import org.cx.boxed.BoxedTasks.Spawner;
import org.cx.boxed.BoxedTasks.Count;
import org.cx.boxed.BoxedTasks.Exit;
import org.cx.boxed.BoxedTasks.Forger;
import org.cx.boxed.BoxedTasks.Hog;
import org.cx.boxed.BoxedTasks.Probe;
import org.cx.boxed.BoxedTasks.Spin;
import org.cx.boxed.BoxedTasks.Square;
import org.cx.wire.BodyCodec;
import org.cx.wire.BodyCodecs;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.TaskRunner;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Worker processes, started for real: tasks run in them, and what task code does to them stays there. */
class WorkerProcessTest {
    @TempDir
    Path dir;
    private final BodyCodec codec = new BodyCodecs(getClass().getClassLoader()).forComputation(1);
    private final Map<Long, String> owners = new HashMap<>();
    private final List<WorkerProcess> started = new ArrayList<>();
    private int next;

    private final org.cx.wire.ValueStore values = org.cx.wire.ValueStore.temporary("worker-test");
    private final BodyCodecs codecs = new BodyCodecs(getClass().getClassLoader(), 0, values);

    @AfterEach
    void stop() {
        started.forEach(WorkerProcess::close);
        values.close();
    }

    private WorkerProcess worker(TaskBox.Isolation isolation, int heapMiB) {
        WorkerCommand command = new WorkerCommand(isolation, heapMiB, 1.0, WireConfig.maxFrameBytes(), null); // small
        WorkerProcess p = new WorkerProcess("test-worker-" + started.size(), command, dir, codecs,
                c -> owners.getOrDefault(c, ""), WireConfig.maxFrameBytes(), null);
        started.add(p);
        return p;
    }

    private ReadyTask ready(long computation, Task task) {
        return new ReadyTask(new TaskEnvelope(TaskId.root(computation).child(next++), Continuation.CONSUMER, 0, 0,
                false, codec.encode(task)), new byte[0][]);
    }

    private Object result(TaskRunner.Outcome outcome) {
        TaskRunner.Outcome.Done done = assertInstanceOf(TaskRunner.Outcome.Done.class, outcome,
                () -> String.valueOf(outcome));
        return codec.decode(done.completion().values()[0].value());
    }

    private static String failure(TaskRunner.Outcome outcome) {
        return assertInstanceOf(TaskRunner.Outcome.Failed.class, outcome, () -> String.valueOf(outcome)).reason();
    }

    @Test
    void aTaskRunsInItsWorkerProcessAndItsEffectsComeBack() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        assertEquals(49, result(p.run(ready(1, new Square(7)))));
        assertEquals(144, result(p.run(ready(1, new Square(12)))));
        assertEquals(0, p.restarts());
    }

    @Test
    void aTaskThatEndsItsProcessFailsSayingSoAndTheNextTaskGetsANewOne() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        String reason = failure(p.run(ready(1, new Exit())));
        assertTrue(reason.contains("ended its worker process (exit status 3)"), reason);
        assertTrue(reason.contains("exiting on purpose"), "its last output explains: " + reason);
        assertEquals(1, p.restarts());
        assertEquals(25, result(p.run(ready(1, new Square(5)))));
    }

    @Test
    void aTaskOverItsHeapFailsSayingSoAndTheWorkerCarriesOn() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 32);
        String reason = failure(p.run(ready(1, new Hog())));
        assertTrue(reason.contains("ran out of memory") || reason.contains("ended its worker process"), reason);
        assertEquals(9, result(p.run(ready(1, new Square(3)))));
    }

    @Test
    void aTaskOverItsCpuLimitIsStoppedAndFailsSayingWhy() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        CompletableFuture<TaskRunner.Outcome> spinning = CompletableFuture.supplyAsync(
                () -> p.run(ready(1, new Spin())));
        while (!spinning.isDone()) {
            p.checkCpu(Duration.ofMillis(300)); // the producer's watch does this every 200 ms
            Thread.onSpinWait();
        }
        String reason = failure(spinning.join());
        assertTrue(reason.contains("used more than 300 ms of CPU time"), reason);
        assertEquals(16, result(p.run(ready(1, new Square(4)))), "a new process runs the next task");
    }

    @Test
    void aTaskOfAComputationThatEndedIsStoppedWithoutAReport() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        CompletableFuture<TaskRunner.Outcome> spinning = CompletableFuture.supplyAsync(
                () -> p.run(ready(5, new Spin())));
        long before = Spin.spins;
        while (!spinning.isDone()) {
            p.ended(5); // until it has started, there is nothing to stop
            Thread.onSpinWait();
        }
        assertNull(spinning.join(), "nothing to report for a computation that is over");
        assertEquals(before, Spin.spins, "it spun in its own process, not in this one");
        assertEquals(4, result(p.run(ready(6, new Square(2)))));
    }

    /**
     * Task code owns its process, so what it writes may be taken for its own user's answers (the server checks
     * those like any producer's); it cannot claim tasks, and an answer that does not fit ends the process.
     */
    @Test
    void whatTaskCodeWritesOnItsProcesssOutputClaimsNothingAndEndsTheProcess() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        TaskRunner.Outcome forged = p.run(ready(1, new Forger()));
        org.cx.wire.Completion c = assertInstanceOf(TaskRunner.Outcome.Done.class, forged).completion();
        assertEquals(-1, c.claimed(), "claims are the producer's to make");
        assertTrue(!c.keeps(), "and so are kept copies");
        TaskRunner.Outcome next = p.run(ready(1, new Square(6)));
        if (next instanceof TaskRunner.Outcome.Failed f) { // the real answer that followed arrived in time
            assertTrue(f.reason().contains("something else than its outcome"), f.reason());
        }
        assertEquals(49, result(p.run(ready(1, new Square(7)))), "a new process answers for itself");
    }

    /** A value larger than a message comes back from the process by reference, its bytes ahead of the outcome. */
    @Test
    void aValueOverTheMessageLimitComesBackByReferenceAndEffectsOverItFailTheTask() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 256); // a message limit of one frame, 16 MiB
        TaskRunner.Outcome big = p.run(ready(1, new Big(20 << 20)));
        byte[] value = assertInstanceOf(TaskRunner.Outcome.Done.class, big).completion().values()[0].value();
        assertTrue(org.cx.wire.ValueRef.is(value));
        assertEquals(20 << 20, ((byte[]) codecs.forComputation(1).decode(value)).length);
        String reason = failure(p.run(ready(1, new Spawner(20, 1 << 20))));
        assertTrue(reason.contains("over the message limit") && reason.contains("20 stored tasks"), reason);
        assertEquals(1, result(p.run(ready(1, new Square(1)))), "the worker carries on");
    }

    /** A value the worker process made, let go by the producer, goes from the process with its next task. */
    @Test
    void aValueTheProducerLetsGoGoesFromItsWorkerProcessWithTheNextTask() throws IOException {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64); // values over 8 MiB go to a file of its store
        TaskRunner.Outcome big = p.run(ready(1, new Big(20 << 20)));
        byte[] value = assertInstanceOf(TaskRunner.Outcome.Done.class, big).completion().values()[0].value();
        Path store = dir.resolve("test-worker-0").resolve(WorkerMain.VALUES_DIRECTORY);
        assertEquals(1, valueFiles(store), "the process keeps the value it made");
        assertEquals(1, result(p.run(ready(1, new Square(1)))));
        assertEquals(1, valueFiles(store), "until the producer lets it go");
        values.release(org.cx.wire.ValueRef.of(value));
        assertEquals(1, result(p.run(ready(1, new Square(1)))));
        assertEquals(0, valueFiles(store), "then with the next task");
    }

    private static long valueFiles(Path store) throws IOException {
        try (var files = Files.list(store)) {
            return files.filter(f -> !f.getFileName().toString().startsWith(".")).count();
        }
    }

    @Test
    void aProcessRunsOneUsersCode() {
        WorkerProcess p = worker(TaskBox.Isolation.PROCESS, 64);
        owners.put(1L, "alice");
        owners.put(2L, "alice");
        owners.put(3L, "bob");
        assertEquals(1, result(p.run(ready(1, new Count()))));
        assertEquals(2, result(p.run(ready(2, new Count()))), "alice's computations share the process");
        assertEquals(1, result(p.run(ready(3, new Count()))), "bob's task gets a process of its own");
    }

    @Test
    void inTheSandboxATaskReadsNoSecretWritesOnlyItsScratchAndReachesNoNetwork() throws IOException {
        assumeTrue(WorkerCommand.sandboxWorks(), "bubblewrap is not usable here (Debian: apt install bubblewrap)");
        Path secret = Files.writeString(dir.resolve("key.pem"), "secret");
        Path outside = dir.resolve("planted.txt");
        try (ServerSocket listening = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Probe probe = new Probe(secret.toString(), outside.toString(), listening.getLocalPort());
            String contained = (String) result(worker(TaskBox.Isolation.SANDBOX, 64).run(ready(1, probe)));
            System.out.println("sandbox: " + contained);
            assertTrue(contained.startsWith("secret=refused:NoSuchFileException"), contained);
            assertTrue(contained.contains("scratch=ok"), contained);
            assertTrue(contained.contains("connect=refused"), contained);
            assertTrue(Files.notExists(outside), "a write outside the scratch directory lands in the sandbox's "
                    + "own /tmp at most, never on the host");

            // The same probe in a plain worker process: what the sandbox adds.
            String open = (String) result(worker(TaskBox.Isolation.PROCESS, 64).run(ready(2, probe)));
            System.out.println("process: " + open);
            assertTrue(open.startsWith("secret=ok:secret"), open);
            assertTrue(open.contains("connect=ok"), open);
            assertTrue(Files.exists(outside), open);
        }
    }
}
