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
}
