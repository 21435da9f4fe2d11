package org.cx.harness;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.management.ObjectName;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.server.ComputationSummary;
import org.cx.server.ConsumerHandle;
import org.cx.server.Outbox;
import org.cx.server.ProducerState;
import org.cx.server.Scheduler;
import org.cx.wire.BodyCodec;
import org.cx.wire.BodyCodecs;
import org.cx.wire.Completion;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;

/**
 * What a task server's scheduling state holds per task, measured on the heap: a scheduler (the state a server keeps
 * for its computations) is given, through the producers' own command, the children of Fibonacci decompositions, as
 * {@code Fib} tasks that are ready and {@code Sum} compositions that wait for both inputs, with their real encoded
 * bodies; the live heap after a full collection, before and after, gives the bytes per task. Nothing is mirrored
 * (a mirror holds its copy in another process) and no producer holds the tasks.
 */
public final class MemoryBench {
    /** Bytes per ready task and per waiting composition, and the heap that {@code tasks} live tasks took. */
    public record Result(int tasks, double bytesPerReadyTask, double bytesPerWaitingComposition, long heapBytes,
                         List<String> topClasses) {
    }

    private MemoryBench() {
    }

    /** Stores {@code tasks} live tasks (half ready, half waiting compositions) and measures them. */
    public static Result run(int tasks) throws Exception {
        int half = tasks / 2;
        BodyCodec codec = new BodyCodecs(MemoryBench.class.getClassLoader()).forComputation(0);
        byte[] fib = codec.encode(new Fib(20, Load.NONE), "a Fib task");
        byte[] sum = codec.encode(new Fib.Sum(Load.NONE), "a Sum task");
        Scheduler scheduler = new Scheduler(new Silent(), Long.MAX_VALUE, new SplittableRandom(1), null);
        ConsumerHandle consumer = () -> 1;
        ProducerState producer = scheduler.addProducer(2, "memory-bench", 1);

        // The waiting compositions first: while they are stored, the next root is the only ready task to hand out.
        long empty = liveHeap();
        decompose(scheduler, consumer, producer, half, sum, 2);
        long withWaiting = liveHeap();
        decompose(scheduler, consumer, producer, tasks - half, fib, 0);
        long withBoth = liveHeap();
        List<String> top = histogram(8);
        if (scheduler.taskCount() != tasks || scheduler.readyCount() != tasks - half) {
            throw new IllegalStateException("stored " + scheduler.taskCount() + " tasks (" + scheduler.readyCount()
                    + " ready), not " + tasks + " (" + (tasks - half) + ")");
        }
        return new Result(tasks, (withBoth - withWaiting) / (double) (tasks - half),
                (withWaiting - empty) / (double) half, withBoth - empty, top);
    }

    /**
     * Submits a computation and completes its root, as a producer would, with {@code count} children of
     * {@code arity} and body {@code body}, each sending its value to the root's composition (which is not stored).
     */
    private static void decompose(Scheduler scheduler, ConsumerHandle consumer, ProducerState producer, int count,
                                    byte[] body, int arity) {
        long computation = scheduler.submissions().submit(consumer,
                new TaskEnvelope(TaskId.root(0), Continuation.CONSUMER, 0, 0, false, body), 0);
        TaskId root = TaskId.root(computation);
        scheduler.request(producer, 1, 1); // the root goes to the producer
        TaskEnvelope[] children = new TaskEnvelope[count];
        for (int i = 0; i < count; i++) {
            TaskId child = root.child(i + 1);
            children[i] = new TaskEnvelope(child, Continuation.to(root.child(0), i % 2), arity, 0, false,
                    body.clone());
        }
        scheduler.completed(producer, new Completion(root, children, new ValueEnvelope[0], 1));
    }

    /** Bytes live on the heap after full collections. */
    private static long liveHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** The {@code n} classes with the most live bytes, as the JVM's class histogram gives them. */
    private static List<String> histogram(int n) throws Exception {
        String table = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        List<String> rows = new ArrayList<>();
        for (String line : table.lines().toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":") && rows.size() < n) {
                rows.add(String.format("%,14d bytes %,11d x %s", Long.parseLong(f[2]), Long.parseLong(f[1]), f[3]));
            }
        }
        return rows;
    }

    /** An outbox that sends nothing: the measurement keeps no connection. */
    private static final class Silent implements Outbox {
        @Override
        public void assign(ProducerState producer, ReadyTask task) {
        }

        @Override
        public void drop(ProducerState producer, TaskId task) {
        }

        @Override
        public void keep(ProducerState producer, TaskEnvelope task, ValueEnvelope[] known) {
        }

        @Override
        public void unkeep(ProducerState producer, TaskId task) {
        }

        @Override
        public void input(ProducerState producer, ValueEnvelope value) {
        }

        @Override
        public void revoke(ProducerState producer, TaskId[] tasks) {
        }

        @Override
        public void computationEnded(long computation, boolean atOrigin) {
        }

        @Override
        public void result(ConsumerHandle consumer, long computation, byte[] value, ComputationSummary summary) {
        }

        @Override
        public void failed(ConsumerHandle consumer, long computation, String taskId, String reason) {
        }

        @Override
        public void accepted(ConsumerHandle consumer, long requestId, long computation) {
        }

        @Override
        public void route(int server, RoutedPayload payload) {
        }

        @Override
        public void runOnServer(ReadyTask task) {
        }
    }
}
