package org.cx.examples.fib;

import org.cx.api.Continuation;
import org.cx.api.ValueTask;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;

/**
 * F(n), the paper's Fig. 1: for n &lt; 2 a boundary task sends n onward; otherwise a decomposition task stores a
 * composition {@link Sum} that inherits its continuation, and two subproblems whose values go to the sum's inputs.
 */
public final class Fib extends ValueTask<Long> {
    private final int n;
    private final Load load;

    public Fib(int n, Load load) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0: " + n);
        }
        this.n = n;
        this.load = load;
    }

    public Fib(int n) {
        this(n, Load.NONE);
    }

    @Override
    public void execute(TaskContext context) {
        if (n < 2) {
            load.leaf(context.hostSpeed());
            context.sendResult((long) n);
            return;
        }
        load.decompose(context.hostSpeed());
        TaskId sum = context.storeTask(new Sum(load), context.continuation());
        context.storeTask(new Fib(n - 1, load), Continuation.to(sum, 0));
        context.storeTask(new Fib(n - 2, load), Continuation.to(sum, 1));
    }

    /** Bigger subproblems first: they spawn more work (the paper's example of overriding the priority hook). */
    @Override
    public long priority() {
        return n;
    }

    /** F(n), computed directly, for checking. */
    public static long value(int n) {
        long a = 0;
        long b = 1;
        for (int i = 0; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return a;
    }

    /** Number of tasks F(n) spawns: T(n) = 3·F(n+1) − 2. */
    public static long taskCount(int n) {
        return 3 * value(n + 1) - 2;
    }

    /** Length of the critical path in tasks: 2n − 1 (1 for n &lt; 2). */
    public static int criticalPath(int n) {
        return n < 2 ? 1 : 2 * n - 1;
    }

    /** Composition: adds its two inputs and sends the sum on. */
    public static final class Sum extends Task {
        private final Load load;

        public Sum(Load load) {
            super(2);
            this.load = load;
        }

        @Override
        public void execute(TaskContext context) {
            load.compose(context.hostSpeed());
            long a = input(0);
            long b = input(1);
            context.sendResult(a + b);
        }

        /** Compositions sit on the critical path's tail: run them before any decomposition. */
        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
