package org.cx.wire;

/** What task servers send each other exactly once (see {@link Message.Routed}). */
public sealed interface RoutedPayload {

    /** The computation it belongs to. */
    long computation();

    /** The sender's counts it carries ({@link Tally}); none for a failure. */
    default Tally tally() {
        return Tally.NONE;
    }

    /**
     * Diffusion: ready tasks of computation {@code computation} (whose result is delivered by server
     * {@code origin}, from code bundle {@code bundle}, submitted by user {@code owner} at priority {@code priority})
     * move to the receiver; {@code homes[i]} holds task i's successor. {@code tally}: see {@link Tally}.
     */
    record Transfer(long computation, int origin, String bundle, String owner, int priority, ReadyTask[] tasks,
                    int[] homes, Tally tally) implements RoutedPayload {
        public Transfer {
            tally = tally == null ? Tally.NONE : tally;
        }
    }

    /**
     * A value for a task that lives on the receiver (or for the consumer, when the receiver is the origin).
     * {@code tally}: see {@link Tally}.
     */
    record Value(long computation, ValueEnvelope value, Tally tally) implements RoutedPayload {
        public Value {
            tally = tally == null ? Tally.NONE : tally;
        }
    }

    /**
     * What the sender counted of the computation that it has not passed on yet: tasks completed, executions and
     * their execution time. Tallies ride with the computation's values and transfers, which all lead to its
     * origin in the end, so that the origin's summary for the consumer covers the whole network.
     */
    record Tally(long tasks, long executions, long execNanos) {
        public static final Tally NONE = new Tally(0, 0, 0);

        public Tally plus(Tally other) {
            return new Tally(tasks + other.tasks, executions + other.executions, execNanos + other.execNanos);
        }

        public Tally negated() {
            return new Tally(-tasks, -executions, -execNanos);
        }
    }

    /** A task of {@code computation} failed elsewhere; the origin fails the computation. */
    record Failure(long computation, String taskId, String reason) implements RoutedPayload {
    }
}
