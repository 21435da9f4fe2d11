package org.cx.api;

/**
 * "The" task server as a consumer sees it (paper §3), however many servers implement it.
 */
public interface TaskServer extends AutoCloseable {

    /** Stores {@code root} as a new computation; its final value reaches {@code listener}. */
    default <R> Computation<R> submit(Task root, ResultListener<? super R> listener) {
        return submit(root, SubmitOptions.defaults(), listener);
    }

    /**
     * Stores {@code root} as a new computation that runs as {@code options} say (priority, timeout, validation,
     * shared data); its final value reaches {@code listener}.
     */
    <R> Computation<R> submit(Task root, SubmitOptions options, ResultListener<? super R> listener);

    /** Stores {@code root} as a new computation; use {@link Computation#result()} for its value. */
    default <R> Computation<R> submit(Task root) {
        return submit(root, result -> { });
    }

    /** Stores {@code root}, whose value is an {@code R}, as a new computation of result type {@code R}. */
    default <R> Computation<R> submit(ValueTask<R> root) {
        return submit(root, SubmitOptions.defaults(), result -> { });
    }

    /** {@link #submit(Task)} for a root whose value is an {@code R}, running as {@code options} say. */
    default <R> Computation<R> submit(ValueTask<R> root, SubmitOptions options) {
        return submit(root, options, result -> { });
    }

    /**
     * Stores {@code root} as a computation validated by redundant execution: each task's effects apply only once
     * {@code quorum} producers of different owners returned equal ones, so that a volunteer who returns false
     * results cannot change the value. Its tasks must be deterministic in their effects; it takes about
     * {@code quorum} times the work, and runs only while producers of that many owners are attached.
     *
     * @param quorum 1 (no validation) to 5
     */
    default <R> Computation<R> submit(Task root, int quorum, ResultListener<? super R> listener) {
        return submit(root, SubmitOptions.defaults().withQuorum(quorum), listener);
    }

    /**
     * Stores {@code root} as a new computation whose tasks may read {@code data} ({@link TaskContext#sharedData}).
     * The data is sent to the network only if it does not hold it already.
     */
    default <R> Computation<R> submit(Task root, SharedData data, ResultListener<? super R> listener) {
        return submit(root, SubmitOptions.defaults().withData(data), listener);
    }

    /**
     * Collects the result of a computation submitted earlier, possibly by another connection or process. The server
     * keeps a result until it is collected or until its retention expires.
     */
    <R> Computation<R> collect(long computationId, ResultListener<? super R> listener);

    @Override
    void close();
}
