package org.cx.wire;

/** What task servers send each other exactly once (see {@link Message.Routed}). */
public sealed interface RoutedPayload {

    /**
     * Diffusion: ready tasks of computation {@code computation} (whose result is delivered by server
     * {@code origin}, from code bundle {@code bundle}) move to the receiver; {@code homes[i]} holds task i's
     * successor.
     */
    record Transfer(long computation, int origin, String bundle, ReadyTask[] tasks, int[] homes)
            implements RoutedPayload {
    }

    /** A value for a task that lives on the receiver (or for the consumer, when the receiver is the origin). */
    record Value(long computation, ValueEnvelope value) implements RoutedPayload {
    }

    /** A task of {@code computation} failed elsewhere; the origin fails the computation. */
    record Failure(long computation, String taskId, String reason) implements RoutedPayload {
    }
}
