package org.cx.api;

import java.util.concurrent.CompletableFuture;

/**
 * A submitted computation. Its result arrives through the {@link ResultListener} given at submission and through
 * {@link #result()}, for those who prefer a future.
 */
public interface Computation<R> {

    /** The server-assigned id: keep it to collect the result later from another connection. */
    long id();

    /** Completes with the result, or exceptionally with a {@link ComputationFailedException}. */
    CompletableFuture<R> result();

    /**
     * Asks the server where this computation stands: tasks ready, running and waiting, and which inputs the waiting
     * ones lack (see {@link Diagnosis}). For a computation that seems to hang.
     */
    default CompletableFuture<Diagnosis> diagnose() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this computation cannot be asked"));
    }

    /**
     * Stops this computation: its tasks are dropped on every server and producer, the effects of those running are
     * refused, and {@link #result()} fails with a {@link ComputationFailedException} saying it was cancelled. The
     * returned future completes once the server has cancelled it, or fails saying why it could not (it is over
     * already, or unknown there).
     */
    default CompletableFuture<Void> cancel() {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException("this computation cannot be cancelled"));
    }

    /**
     * Gives this computation a new priority among its user's computations ({@link SubmitOptions#priority()}). The
     * returned future completes once its server has applied it (the other servers holding its tasks follow as the
     * message reaches them), or fails saying why it could not (it is over already, or unknown there).
     */
    default CompletableFuture<Void> changePriority(int priority) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException("this computation's priority cannot be changed"));
    }
}
