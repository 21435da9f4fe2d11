package org.cx.wire;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.api.spi.TaskBinding;

/**
 * Runs one ready task: decodes it in its computation's codec, executes it against a context that buffers every
 * effect, and returns the effects as one {@link Completion}, or the reason it failed. Used by producers and, for
 * {@code executeOnServer} tasks, by servers.
 */
public final class TaskRunner {
    /** Reads the running thread's CPU time: a system call, about 0.4 µs (see {@link #cpuNanos}). */
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory
            .getThreadMXBean();
    /** Tasks that ran this long or longer have their CPU time read from the clock; shorter ones are estimated. */
    static final long MEASURED_NANOS = 100_000;
    /** Per thread: its CPU clock at the last read, and the wall time of the shorter tasks it ran since. */
    private static final ThreadLocal<long[]> CPU_CLOCK = ThreadLocal.withInitial(
            () -> new long[] {CPU.getCurrentThreadCpuTime(), 0});

    /** The outcome of running a task: exactly one of the two. */
    public sealed interface Outcome {
        /** @param kind the task's class, by simple name (for timelines) */
        record Done(Completion completion, String kind) implements Outcome {
        }

        record Failed(TaskId id, String reason) implements Outcome {
        }
    }

    private TaskRunner() {
    }

    /** Decodes a ready task, binding its id, continuation and inputs. */
    public static Task decode(BodyCodec codec, ReadyTask ready) {
        TaskEnvelope env = ready.task();
        Object decoded = codec.decode(env.body());
        if (!(decoded instanceof Task task)) {
            throw new BodyCodec.UndecodableException("body of " + env.id() + " is a "
                    + (decoded == null ? "null" : decoded.getClass().getName()) + ", not a Task", null);
        }
        Object[] inputs = new Object[ready.inputs().length];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = codec.decode(ready.inputs()[i]);
        }
        TaskBinding.bind(task, env.id(), env.continuation(), inputs);
        return task;
    }

    /** Runs {@code task} (already decoded and bound) and collects its effects. Never throws for task failures. */
    public static Outcome run(BodyCodec codec, Task task) {
        return run(codec, task, 1.0);
    }

    /** {@link #run(BodyCodec, Task)} on a host of the given {@link TaskContext#hostSpeed() speed}. */
    public static Outcome run(BodyCodec codec, Task task, double hostSpeed) {
        return run(codec, null, task, hostSpeed);
    }

    /** {@link #run(BodyCodec, Task, double)} for a computation with shared data {@code data} (null: none). */
    public static Outcome run(BodyCodec codec, CodeBundle data, Task task, double hostSpeed) {
        return run(codec, data, task, TaskHost.of(hostSpeed));
    }

    /** {@link #run(BodyCodec, CodeBundle, Task, double)} on {@code host}. */
    public static Outcome run(BodyCodec codec, CodeBundle data, Task task, TaskHost host) {
        BufferingContext context = new BufferingContext(codec, data, task, host);
        Thread me = Thread.currentThread();
        ClassLoader previous = me.getContextClassLoader();
        me.setContextClassLoader(codec.classLoader()); // the computation's classes, for code that looks them up
        long[] clock = CPU_CLOCK.get();
        long start = System.nanoTime();
        try {
            task.execute(context);
        } catch (RuntimeException | Error e) {
            if (e instanceof OutOfMemoryError) {
                // What it allocated is garbage now: the worker carries on, and the task fails saying why.
                return new Outcome.Failed(task.id(), "task " + task.id() + " ran out of memory (its process's heap is "
                        + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB): " + e.getMessage());
            }
            if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
                throw vme;
            }
            return new Outcome.Failed(task.id(), describe(e));
        } finally {
            me.setContextClassLoader(previous);
        }
        long execNanos = System.nanoTime() - start;
        long cpuNanos = cpuNanos(clock, execNanos);
        try {
            return new Outcome.Done(context.toCompletion(execNanos, cpuNanos), task.getClass().getSimpleName());
        } catch (RuntimeException e) {
            return new Outcome.Failed(task.id(), "could not encode the effects of " + task.id() + ": " + describe(e));
        }
    }

    /**
     * The CPU time of a task that took {@code execNanos}, at one read of the clock per task of {@link
     * #MEASURED_NANOS} or more and none for shorter ones: a shorter task's CPU time is taken to be its wall time (it
     * had no time to wait for anything); a longer one's is what the thread's clock advanced since its last read, less
     * the shorter tasks' estimates, and at most its wall time (a task runs on one thread). Two reads per task would
     * cost 0.8 µs of every task: at 280,000 tasks/s, a tenth of a 2-core machine.
     */
    static long cpuNanos(long[] clock, long execNanos) {
        if (execNanos < MEASURED_NANOS) {
            clock[1] += execNanos;
            return execNanos;
        }
        long now = CPU.getCurrentThreadCpuTime();
        long since = now - clock[0] - clock[1];
        clock[0] = now;
        clock[1] = 0;
        return Math.max(0, Math.min(execNanos, since));
    }

    /** Decodes and runs; a task whose class or inputs cannot be decoded fails with the reason. */
    public static Outcome decodeAndRun(BodyCodec codec, ReadyTask ready) {
        return decodeAndRun(codec, ready, 1.0);
    }

    /**
     * Decodes and runs {@code ready} with the codec and shared data of its computation in {@code codecs}, on a host
     * of the given {@link TaskContext#hostSpeed() speed}.
     */
    public static Outcome decodeAndRun(BodyCodecs codecs, ReadyTask ready, double hostSpeed) {
        return decodeAndRun(codecs, ready, TaskHost.of(hostSpeed));
    }

    /** {@link #decodeAndRun(BodyCodecs, ReadyTask, double)} on {@code host}. */
    public static Outcome decodeAndRun(BodyCodecs codecs, ReadyTask ready, TaskHost host) {
        long computation = ready.task().id().computation();
        return decodeAndRun(codecs.forComputation(computation), codecs.dataOf(computation), ready, host);
    }

    /** {@link #decodeAndRun(BodyCodec, ReadyTask)} on a host of the given {@link TaskContext#hostSpeed() speed}. */
    public static Outcome decodeAndRun(BodyCodec codec, ReadyTask ready, double hostSpeed) {
        return decodeAndRun(codec, null, ready, TaskHost.of(hostSpeed));
    }

    private static Outcome decodeAndRun(BodyCodec codec, CodeBundle data, ReadyTask ready, TaskHost host) {
        Task task;
        try {
            task = decode(codec, ready);
        } catch (RuntimeException e) {
            return new Outcome.Failed(ready.task().id(), "cannot decode task " + ready.task().id() + ": "
                    + e.getMessage());
        }
        return run(codec, data, task, host);
    }

    /** The exception and the top of its stack, enough for the consumer to find the bug. */
    static String describe(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        String s = text.toString();
        return s.length() > 4000 ? s.substring(0, 4000) + "\n\t..." : s;
    }

    /** Buffers effects; encodes tasks and values as they are stored, so later mutation by the task has no effect. */
    private static final class BufferingContext implements TaskContext {
        private final BodyCodec codec;
        private final CodeBundle data;
        private final Task running;
        private final List<TaskEnvelope> spawned = new ArrayList<>(4);
        private final List<ValueEnvelope> values = new ArrayList<>(2);
        private Set<Continuation> sentTo;
        private final TaskHost host;

        BufferingContext(BodyCodec codec, CodeBundle data, Task running, TaskHost host) {
            this.codec = codec;
            this.data = data;
            this.running = running;
            this.host = host;
        }

        @Override
        public double hostSpeed() {
            return host.speed();
        }

        @Override
        public java.nio.file.FileSystem files() {
            java.nio.file.FileSystem files = host.files().apply(running.id().computation());
            return files != null ? files : TaskContext.super.files();
        }

        @Override
        public TaskId id() {
            return running.id();
        }

        @Override
        public java.nio.ByteBuffer sharedData(String name) {
            byte[] entry = data == null ? null : data.entry(name);
            if (entry == null) {
                throw new IllegalArgumentException("no shared data named '" + name + "' in this computation; it has "
                        + (data == null ? "none" : data.entryNames()));
            }
            return java.nio.ByteBuffer.wrap(entry).asReadOnlyBuffer();
        }

        @Override
        public Continuation continuation() {
            return running.continuation();
        }

        @Override
        public TaskId storeTask(Task task, Continuation sendTo) {
            if (sendTo == null) {
                throw new IllegalArgumentException("storeTask needs a continuation (Continuation.CONSUMER for the result)");
            }
            TaskId childId = running.id().child(spawned.size());
            TaskBinding.bind(task, childId, sendTo, null);
            spawned.add(new TaskEnvelope(childId, sendTo, task.arity(), task.priority(), task.executeOnServer(),
                    task.firstInputWins(), codec.encode(task, () -> "task " + task.getClass().getName())));
            return childId;
        }

        @Override
        public void storeResult(TaskId successor, int argNo, Object value) {
            storeResult(Continuation.to(successor, argNo), value);
        }

        @Override
        public void storeResult(Continuation k, Object value) {
            if (!values.isEmpty() && !sentTo().add(k)) {
                throw new IllegalStateException("task " + running.id() + " sent a second value to " + describe(k)
                        + " in one run: each input takes one value (is a continuation used twice?)");
            }
            values.add(new ValueEnvelope(k, codec.encodeValue(value, running.id().computation(),
                    () -> "value for " + describe(k))));
        }

        /** The inputs values were sent to, from the second value on. */
        private Set<Continuation> sentTo() {
            if (sentTo == null) {
                sentTo = new HashSet<>();
                values.forEach(v -> sentTo.add(v.to()));
            }
            return sentTo;
        }

        private static String describe(Continuation k) {
            return k.isConsumer() ? "the consumer" : "input " + k.argNo() + " of task " + k.target();
        }

        Completion toCompletion(long execNanos, long cpuNanos) {
            return new Completion(running.id(), spawned.toArray(TaskEnvelope[]::new),
                    values.toArray(ValueEnvelope[]::new), execNanos, cpuNanos);
        }
    }
}
