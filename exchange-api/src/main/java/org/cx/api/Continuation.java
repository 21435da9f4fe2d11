package org.cx.api;

import java.util.Objects;

/**
 * Where a task's value goes: input {@code argNo} of the successor task {@code target}, or, for the computation's
 * final continuation, the consumer's {@link ResultListener#processResult}.
 *
 * @param target the successor task, or {@code null} for the consumer
 * @param argNo  which input of the successor; 0 for the consumer
 */
public record Continuation(TaskId target, int argNo) {

    /** The computation's final continuation: the value becomes the consumer's result. */
    public static final Continuation CONSUMER = new Continuation(null, 0);

    public Continuation {
        if (argNo < 0 || (target == null && argNo != 0)) {
            throw new IllegalArgumentException("bad argument number " + argNo + " for " + target);
        }
    }

    /** Input {@code argNo} of task {@code successor}. */
    public static Continuation to(TaskId successor, int argNo) {
        return new Continuation(Objects.requireNonNull(successor, "successor"), argNo);
    }

    public boolean isConsumer() {
        return target == null;
    }
}
