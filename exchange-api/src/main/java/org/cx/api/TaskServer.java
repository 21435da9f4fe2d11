package org.cx.api;

/**
 * "The" task server as a consumer sees it (paper §3), however many servers implement it.
 */
public interface TaskServer extends AutoCloseable {

    /** Stores {@code root} as a new computation; its final value reaches {@code listener}. */
    <R> Computation<R> submit(Task root, ResultListener<? super R> listener);

    /** Stores {@code root} as a new computation; use {@link Computation#result()} for its value. */
    default <R> Computation<R> submit(Task root) {
        return submit(root, result -> { });
    }

    /**
     * Collects the result of a computation submitted earlier, possibly by another connection or process. The server
     * keeps a result until it is collected or until its retention expires.
     */
    <R> Computation<R> collect(long computationId, ResultListener<? super R> listener);

    @Override
    void close();
}
