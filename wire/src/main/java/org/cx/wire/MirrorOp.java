package org.cx.wire;

import org.cx.api.TaskId;

/**
 * One change to a task server's replicated state, as its mirror group applies it. Only what a successor needs to
 * carry on is replicated: tasks with their inputs, computations owned here, and the exactly-once channels to other
 * servers. Who holds which copy (producers, revokes) is not: after a failure the producers come back and ask again.
 */
public sealed interface MirrorOp {

    /** A task is stored here, with the inputs it has so far (null where missing). */
    record Put(TaskEnvelope task, int home, int origin, byte[][] inputs) implements MirrorOp {
    }

    /** Input {@code argNo} of task {@code id} arrived. */
    record Input(TaskId id, int argNo, byte[] value) implements MirrorOp {
    }

    /** Task {@code id} left: completed, or moved to another server. */
    record Remove(TaskId id) implements MirrorOp {
    }

    /**
     * Computation {@code id} was submitted here by user {@code owner} (empty on a plain network), validated by
     * {@code quorum} producers, ranked {@code priority} among its user's computations and failed after
     * {@code timeoutNanos} (0: never); this server delivers its result, to that user only.
     */
    record Started(long id, long submittedNanos, String owner, int quorum, int priority, long timeoutNanos)
            implements MirrorOp {
    }

    /** Computation {@code id}'s owner gave it a new priority. */
    record Reprioritized(long id, int priority) implements MirrorOp {
    }

    /**
     * Computation {@code id} is over: {@code result} if it succeeded, otherwise {@code failedTask} and
     * {@code failure}. Its remaining tasks are gone.
     */
    record Finished(long id, byte[] result, String failedTask, String failure, long tasks, long executions,
                    long t1Nanos, long wallNanos) implements MirrorOp {
    }

    /** Computation {@code id}'s tasks here are gone (it ended elsewhere); or its result was collected or expired. */
    record Forget(long id) implements MirrorOp {
    }

    /** Message {@code seq} on channel {@code from → to} is to be delivered (until acknowledged). */
    record Send(int from, int to, long seq, RoutedPayload payload) implements MirrorOp {
    }

    /** Channel {@code from → to} is acknowledged up to {@code seq}. */
    record Acked(int from, int to, long seq) implements MirrorOp {
    }

    /** Message {@code seq} on channel {@code from → to} was received and applied here. */
    record Received(int from, int to, long seq) implements MirrorOp {
    }

    /**
     * The counts of computation {@code id} that the server holds and has not passed on (its {@link
     * RoutedPayload.Tally}) grew by these: tasks it completed, executions and execution time, or a tally it received.
     * A mirror subtracts the tally of every value or transfer the server sends, so that an heir passes on exactly
     * what the failed server had not.
     */
    record Tally(long id, RoutedPayload.Tally counts) implements MirrorOp {
    }

    /** The server learned that computation {@code id} runs from code bundle {@code bundle}. */
    record Code(long id, String bundle) implements MirrorOp {
    }

    /**
     * Usage of the completions the server applied in this batch, not yet sealed in a usage batch: with the
     * completions themselves on the mirrors, an heir neither loses nor repeats it.
     */
    record UsageDelta(Usage[] rows) implements MirrorOp {
    }

    /**
     * The server holds a batch of usage for the accounting service, {@code id}: one it sealed ({@code sealsDeltas}:
     * every delta since its last batch and the rest of its usage), or one it took over from a failed server. An heir
     * sends it (again, under the same id, which the service recognises) unless it was acknowledged.
     */
    record UsageBatch(String id, Usage[] rows, boolean sealsDeltas) implements MirrorOp {
    }

    /** The accounting service acknowledged usage batch {@code id}. */
    record UsageAcked(String id) implements MirrorOp {
    }
}
