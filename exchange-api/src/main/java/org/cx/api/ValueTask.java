package org.cx.api;

/**
 * A task that declares the type of the value it sends to its continuation: {@code class Fib extends
 * ValueTask<Long>}. Submitting one as a root gives a computation of that result type, without a type witness:
 * {@code Computation<Long> c = server.submit(new Fib(30))}. Nothing checks at run time that the task sends a value
 * of that type (the consumer's cast does, when the result arrives).
 *
 * @param <R> the type of the task's value
 */
public abstract class ValueTask<R> extends Task {
    /** A task with no inputs. */
    protected ValueTask() {
        super();
    }

    /** A task that becomes ready when {@code arity} inputs have been stored into it. */
    protected ValueTask(int arity) {
        super(arity);
    }
}
