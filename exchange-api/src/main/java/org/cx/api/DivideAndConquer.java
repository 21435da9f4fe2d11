package org.cx.api;

import java.util.ArrayList;
import java.util.List;

/**
 * Divide and conquer in four methods: is this problem small, solve it, split it, combine the parts' solutions. CX
 * builds the decomposition and composition tasks from them ({@link #task}): a problem that is not small is split
 * into any number of parts, each solved as a task of its own, and a composition task waiting for as many inputs
 * combines their solutions in order. {@link #isSmall} is the cut-off: make it true for problems too small to be
 * worth a task of their own.
 *
 * <pre>{@code
 * record Fibonacci() implements DivideAndConquer<Integer, Long> {
 *     public boolean isSmall(Integer n) { return n < 2; }
 *     public Long solve(Integer n, TaskContext context) { return (long) n; }
 *     public List<Integer> split(Integer n, TaskContext context) { return List.of(n - 1, n - 2); }
 *     public Long combine(List<Long> parts, TaskContext context) { return parts.get(0) + parts.get(1); }
 * }
 * Computation<Long> c = server.submit(DivideAndConquer.task(new Fibonacci(), 30));
 * }</pre>
 *
 * <p>The template and the problems travel to producers as a task's fields do (see the user guide for what they may
 * hold), so a template should be a small, stateless object; the context gives each method the host's speed and
 * the computation's shared data. Like every task, the methods must be deterministic: a task may run more than once.
 *
 * @param <P> a problem
 * @param <R> its solution
 */
public interface DivideAndConquer<P, R> {

    /** Whether {@code problem} is solved directly, not split. */
    boolean isSmall(P problem);

    /** Solves a small problem. */
    R solve(P problem, TaskContext context);

    /** Splits a problem that is not small into parts (none: {@link #combine} gets an empty list). */
    List<P> split(P problem, TaskContext context);

    /** Combines the solutions of the parts {@link #split} made, in the order it made them. */
    R combine(List<R> parts, TaskContext context);

    /**
     * The priority of the task solving {@code problem} at {@code depth} splits from the root, among this
     * computation's tasks (higher first; see {@link Task#priority()}). Default: the paper's order, shallower first.
     * Compositions always come first: they are on the critical path's tail.
     */
    default long priority(P problem, int depth) {
        return -depth;
    }

    /** The root task of a computation that solves {@code problem} with {@code template}. */
    static <P, R> ValueTask<R> task(DivideAndConquer<P, R> template, P problem) {
        return new Divide<>(template, problem, 0);
    }

    /** A problem, solved directly or split into parts whose solutions a {@link Combine} joins. */
    final class Divide<P, R> extends ValueTask<R> {
        private final DivideAndConquer<P, R> template;
        private final P problem;
        private final int depth;

        Divide(DivideAndConquer<P, R> template, P problem, int depth) {
            this.template = template;
            this.problem = problem;
            this.depth = depth;
        }

        @Override
        public void execute(TaskContext context) {
            if (template.isSmall(problem)) {
                context.sendResult(template.solve(problem, context));
                return;
            }
            List<P> parts = template.split(problem, context);
            TaskId combine = context.storeTask(new Combine<>(template, parts.size()), context.continuation());
            for (int i = 0; i < parts.size(); i++) {
                context.storeTask(new Divide<>(template, parts.get(i), depth + 1), Continuation.to(combine, i));
            }
        }

        @Override
        public long priority() {
            return template.priority(problem, depth);
        }

        @Override
        public Class<?> codeClass() {
            return template.getClass();
        }
    }

    /** Combines the solutions of a problem's parts. */
    final class Combine<P, R> extends ValueTask<R> {
        private final DivideAndConquer<P, R> template;

        Combine(DivideAndConquer<P, R> template, int parts) {
            super(parts);
            this.template = template;
        }

        @Override
        public void execute(TaskContext context) {
            List<R> parts = new ArrayList<>(arity());
            for (int i = 0; i < arity(); i++) {
                parts.add(input(i));
            }
            context.sendResult(template.combine(parts, context));
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
