package org.cx.api;

/** The consumer's callback (paper §3): called once with the computation's result, or once with its failure. */
@FunctionalInterface
public interface ResultListener<R> {

    /** Called with the value the computation sent to its final continuation. */
    void processResult(R result);

    /** Called when a task of the computation threw, or the computation could not run. Default: ignored. */
    default void processFailure(ComputationFailedException failure) {
    }
}
