package org.cx.api;

/**
 * A computation that did not produce a result: a task threw, a task's class could not be loaded, the result expired
 * before it was collected, or the server refused the submission. Names the task when one is to blame.
 */
public final class ComputationFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long computation;
    private final String taskId;

    public ComputationFailedException(long computation, String taskId, String message) {
        super(message);
        this.computation = computation;
        this.taskId = taskId;
    }

    /** The failed computation's id. */
    public long computation() {
        return computation;
    }

    /** The id of the task that failed, as text, or {@code null} if no single task is to blame. */
    public String taskId() {
        return taskId;
    }
}
