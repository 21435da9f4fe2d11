package org.cx.api;

import java.util.ArrayList;
import java.util.List;

/**
 * What a running task may do: store tasks and values into "the" task server (paper §3). Every call is buffered and
 * applied atomically with the task's completion; if the task runs more than once, only the first completion's
 * effects are applied. A context is valid only during {@link Task#execute}.
 */
public interface TaskContext {

    /** The running task's id. */
    TaskId id();

    /** Where the running task's own value is expected (set by whoever stored it). */
    Continuation continuation();

    /**
     * How fast the host running this task is, relative to a reference host (1.0; 2.0 = twice as fast). Set per
     * producer by its operator ({@code cx producer --speed}); real work ignores it, synthetic benchmark loads divide
     * their times by it to emulate a mix of processor types (paper §5).
     */
    default double hostSpeed() {
        return 1.0;
    }

    /**
     * Entry {@code name} of the computation's {@link SharedData}, read-only; the same bytes for every task of the
     * computation, fetched once per producer.
     *
     * @throws IllegalArgumentException if the computation has no such entry (the message lists those it has)
     */
    default java.nio.ByteBuffer sharedData(String name) {
        throw new IllegalArgumentException("this computation has no shared data");
    }

    /**
     * The federated file service, as the computation's owner sees it: {@code ctx.files().getPath("/db/seqs.fa")}
     * is a {@link java.nio.file.Path} that {@link java.nio.file.Files} reads and writes like any other. A task's files
     * are its effects too, but they are not buffered: a task that runs twice writes twice, so write a file whole under
     * a name of the task's own (its id) or one that a rerun replaces with the same bytes.
     *
     * @throws UnsupportedOperationException if this task's producer reaches no file service (it was started without
     *                                       one)
     */
    default java.nio.file.FileSystem files() {
        throw new UnsupportedOperationException("this task's producer reaches no federated file service: start the "
                + "producer with --fs-names HOST:PORT (the name service's address)");
    }

    /**
     * Stores {@code task}, whose value will go to {@code sendTo}. Returns the new task's id, which successors of
     * other tasks may name as the target of {@link #storeResult}. The task becomes ready when all
     * {@link Task#arity()} inputs have arrived.
     */
    TaskId storeTask(Task task, Continuation sendTo);

    /** Stores {@code value} as input {@code argNo} of task {@code successor} (paper: {@code t.inputs[argNo] = value}). */
    void storeResult(TaskId successor, int argNo, Object value);

    /** Stores {@code value} into continuation {@code k}; for {@link Continuation#CONSUMER} it is the result. */
    void storeResult(Continuation k, Object value);

    /** Sends the running task's value to its own {@link #continuation()}. */
    default void sendResult(Object value) {
        storeResult(continuation(), value);
    }

    /** Batch form of {@link #storeTask}: stores each task with its continuation, returns their ids in order. */
    default List<TaskId> storeTasks(List<? extends Task> tasks, List<Continuation> sendTo) {
        if (tasks.size() != sendTo.size()) {
            throw new IllegalArgumentException(tasks.size() + " tasks but " + sendTo.size() + " continuations");
        }
        List<TaskId> ids = new ArrayList<>(tasks.size());
        for (int i = 0; i < tasks.size(); i++) {
            ids.add(storeTask(tasks.get(i), sendTo.get(i)));
        }
        return ids;
    }

    /** Batch form of {@link #storeResult(Continuation, Object)}. */
    default void storeResults(List<Continuation> targets, List<?> values) {
        if (targets.size() != values.size()) {
            throw new IllegalArgumentException(targets.size() + " targets but " + values.size() + " values");
        }
        for (int i = 0; i < targets.size(); i++) {
            storeResult(targets.get(i), values.get(i));
        }
    }
}
