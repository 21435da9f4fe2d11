package org.cx.system;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.examples.fib.Load;

/** Application tasks used by the system tests. They live in test-classes, which child producers can be denied. */
final class TestTasks {

    private TestTasks() {
    }

    /** Sends a value of {@code bytes} bytes to the consumer. */
    static final class BigResult extends Task {
        private final int bytes;

        BigResult(int bytes) {
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(new byte[bytes]);
        }
    }

    /**
     * A task sends an array of {@code bytes} bytes, and {@code second} another array, to a {@link Lengths}, which
     * sends their total length.
     */
    static final class LargePair extends Task {
        private final int bytes;
        private final Task second;

        /** Two arrays of {@code bytes} bytes each. */
        LargePair(int bytes) {
            this(bytes, new BigResult(bytes));
        }

        LargePair(int bytes, Task second) {
            this.bytes = bytes;
            this.second = second;
        }

        /** A large array made at once and a 1-byte one made once {@link #GATE} opens. */
        static LargePair thenGated(int bytes) {
            return new LargePair(bytes, new Gated(new byte[1]));
        }

        @Override
        public void execute(TaskContext context) {
            TaskId lengths = context.storeTask(new Lengths(2), context.continuation());
            context.storeTask(new BigResult(bytes), Continuation.to(lengths, 0));
            context.storeTask(second, Continuation.to(lengths, 1));
        }
    }

    /** {@code n} tasks each send an array of {@code bytes} bytes to a task of its own that sends its length. */
    static final class ManyLarge extends Task {
        private final int n;
        private final int bytes;

        ManyLarge(int n, int bytes) {
            this.n = n;
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId sum = context.storeTask(new Sum(n), context.continuation());
            for (int i = 0; i < n; i++) {
                TaskId length = context.storeTask(new Lengths(1), Continuation.to(sum, i));
                context.storeTask(new BigResult(bytes), Continuation.to(length, 0));
            }
        }
    }

    /**
     * {@code n} tasks each hold an array of {@code bytes} bytes and wait for a second input that never comes: their
     * values stay stored on the server.
     */
    static final class HeldArrays extends Task {
        private final int n;
        private final int bytes;

        HeldArrays(int n, int bytes) {
            this.n = n;
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId sum = context.storeTask(new Sum(n), context.continuation());
            for (int i = 0; i < n; i++) {
                TaskId held = context.storeTask(new Lengths(2), Continuation.to(sum, i));
                context.storeTask(new BigResult(bytes), Continuation.to(held, 0));
            }
        }
    }

    /** Fills {@code mib} MiB of its worker's heap and keeps them for up to a minute before sending how many. */
    static final class Hoard extends Task {
        private final int mib;

        Hoard(int mib) {
            this.mib = mib;
        }

        @Override
        public void execute(TaskContext context) {
            byte[][] kept = new byte[mib][];
            for (int i = 0; i < mib; i++) {
                kept[i] = new byte[1 << 20];
                java.util.Arrays.fill(kept[i], (byte) i);
            }
            long end = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
            try {
                while (System.nanoTime() < end) {
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            context.sendResult(kept.length);
        }
    }

    /** Sends the total length of its inputs, arrays of bytes. */
    static final class Lengths extends Task {
        Lengths(int arity) {
            super(arity);
        }

        @Override
        public void execute(TaskContext context) {
            long total = 0;
            for (int i = 0; i < arity(); i++) {
                byte[] a = input(i);
                total += a.length;
            }
            context.sendResult(total);
        }
    }

    /** Stores {@code n} children that each carry {@code bytes} bytes, in one completion. */
    static final class ManyChildren extends Task {
        private final int n;
        private final int bytes;

        ManyChildren(int n, int bytes) {
            this.n = n;
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            for (int i = 0; i < n; i++) {
                context.storeTask(new Carrier(new byte[bytes]), Continuation.CONSUMER);
            }
        }
    }

    /** Carries data in its field; sends its length. */
    static final class Carrier extends Task {
        private final byte[] data;

        Carrier(byte[] data) {
            this.data = data;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(data.length);
        }
    }

    /**
     * Two tasks each send a different value to input 0 of a {@link Pick}, whose input 1 comes from a task that waits
     * for {@link #GATE}: the pick is still waiting when both values arrive.
     */
    static final class Race extends Task {
        private final boolean firstWins;

        Race(boolean firstWins) {
            this.firstWins = firstWins;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId pick = context.storeTask(new Pick(firstWins), context.continuation());
            context.storeTask(new Constant(1L), Continuation.to(pick, 0));
            context.storeTask(new Constant(2L), Continuation.to(pick, 0));
            context.storeTask(new Gated(), Continuation.to(pick, 1));
        }
    }

    static volatile CountDownLatch GATE = new CountDownLatch(0);

    /** Sends 0 once {@link #GATE} opens. */
    static final class Gated extends Task {
        private final Object value;

        Gated() {
            this(0L);
        }

        /** Sends {@code value} instead of 0. */
        Gated(Object value) {
            this.value = value;
        }

        @Override
        public void execute(TaskContext context) {
            try {
                GATE.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            context.sendResult(value);
        }
    }

    /** Stores a {@link Pick} and sends it input 0 only: input 1 never comes. */
    static final class Forgetful extends Task {
        @Override
        public void execute(TaskContext context) {
            TaskId pick = context.storeTask(new Pick(false), context.continuation());
            context.storeTask(new Constant(1L), Continuation.to(pick, 0));
        }
    }

    /** Passes input 0 on; with {@code firstWins}, whichever value came first. */
    static final class Pick extends Task {
        private final boolean firstWins;

        Pick(boolean firstWins) {
            super(2);
            this.firstWins = firstWins;
        }

        @Override
        public boolean firstInputWins() {
            return firstWins;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(input(0));
        }
    }

    static final class Constant extends Task {
        private final long value;

        Constant(long value) {
            this.value = value;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(value);
        }
    }

    /** Stores a child whose field holds a lambda, which cannot travel. */
    static final class SpawnsALambda extends Task {
        @Override
        public void execute(TaskContext context) {
            context.storeTask(new HoldsALambda(), context.continuation());
        }
    }

    static final class HoldsALambda extends Task {
        private final java.util.function.LongSupplier value = () -> 42L;

        @Override
        public void execute(TaskContext context) {
            context.sendResult(value.getAsLong());
        }
    }

    /** Throws when run. */
    static final class Boom extends Task {
        @Override
        public void execute(TaskContext context) {
            throw new IllegalStateException("boom: this task always fails");
        }
    }

    /** Sends the name of the thread it ran on. */
    static final class WhereAmI extends Task {
        private final boolean onServer;

        WhereAmI(boolean onServer) {
            this.onServer = onServer;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(Thread.currentThread().getName());
        }

        @Override
        public boolean executeOnServer() {
            return onServer;
        }
    }

    /**
     * Spawns {@code width} leaves summed by a server-side or producer-side {@link Sum}. Leaf {@code stragglerIndex}
     * blocks on its first execution in this JVM until {@link #RELEASE} opens: only an eager copy can finish it.
     */
    static final class FanOut extends Task {
        private final int width;
        private final int stragglerIndex;

        FanOut(int width, int stragglerIndex) {
            this.width = width;
            this.stragglerIndex = stragglerIndex;
        }

        @Override
        public void execute(TaskContext context) {
            TaskId sum = context.storeTask(new Sum(width), context.continuation());
            for (int i = 0; i < width; i++) {
                context.storeTask(new Leaf(i, i == stragglerIndex), Continuation.to(sum, i));
            }
        }
    }

    static volatile CountDownLatch RELEASE = new CountDownLatch(0);
    static final Set<TaskId> STARTED = ConcurrentHashMap.newKeySet();

    static final class Leaf extends Task {
        private final int value;
        private final boolean straggler;

        Leaf(int value, boolean straggler) {
            this.value = value;
            this.straggler = straggler;
        }

        @Override
        public void execute(TaskContext context) {
            if (straggler && STARTED.add(context.id())) {
                try {
                    RELEASE.await(60, TimeUnit.SECONDS); // the first execution hangs, like a frozen producer
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            context.sendResult((long) value);
        }
    }

    static final class Sum extends Task {
        Sum(int width) {
            super(width);
        }

        @Override
        public void execute(TaskContext context) {
            long total = 0;
            for (int i = 0; i < arity(); i++) {
                long v = input(i);
                total += v;
            }
            context.sendResult(total);
        }
    }

    /** One execution start of a recorded task: its id, {@code System.nanoTime()}, and the worker thread that ran it. */
    record Execution(String task, long nanos, String worker) {
        static void record(TaskContext context) {
            EXECUTIONS.add(new Execution(context.id().toString(), System.nanoTime(), Thread.currentThread().getName()));
        }
    }

    /** Every execution start of a {@link RecordedFib} task in this JVM. */
    static final Queue<Execution> EXECUTIONS = new ConcurrentLinkedQueue<>();

    /**
     * F(n) like the example, with the example's sleep load on its leaves (emulated work of a remote producer),
     * recording when each of its tasks starts to run.
     */
    static final class RecordedFib extends Task {
        private final int n;
        private final int leafMillis;
        private final Load load;

        RecordedFib(int n, int leafMillis) {
            this.n = n;
            this.leafMillis = leafMillis;
            this.load = Load.ofMillis(Load.Kind.SLEEP, 0, leafMillis, 0);
        }

        @Override
        public void execute(TaskContext context) {
            Execution.record(context);
            if (n < 2) {
                load.leaf(context.hostSpeed());
                context.sendResult((long) n);
                return;
            }
            TaskId sum = context.storeTask(new RecordedSum(), context.continuation());
            context.storeTask(new RecordedFib(n - 1, leafMillis), Continuation.to(sum, 0));
            context.storeTask(new RecordedFib(n - 2, leafMillis), Continuation.to(sum, 1));
        }

        @Override
        public long priority() {
            return n;
        }
    }

    static final class RecordedSum extends Task {
        RecordedSum() {
            super(2);
        }

        @Override
        public void execute(TaskContext context) {
            Execution.record(context);
            long a = input(0);
            long b = input(1);
            context.sendResult(a + b);
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
