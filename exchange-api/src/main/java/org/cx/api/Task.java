package org.cx.api;

import org.cx.api.spi.TaskBinding;

/**
 * A non-blocking unit of work (paper §3). Subclasses hold their application data in ordinary fields (serialised to
 * ship the task); the runtime gives them an id, a continuation and, once all have arrived, their inputs.
 *
 * <p>{@link #execute} must not block on other tasks: whatever it needs comes in through its inputs, and whatever it
 * produces leaves through the {@link TaskContext}. It may run more than once (eager scheduling, producer failure),
 * so it must be deterministic in its effects.
 */
public abstract class Task {
    static {
        TaskBinding.install(new TaskBinding.Access() {
            @Override
            public void bind(Task task, TaskId id, Continuation continuation, Object[] inputs) {
                task.id = id;
                task.continuation = continuation;
                task.inputs = inputs;
            }
        });
    }

    private final int arity;
    private transient TaskId id;
    private transient Continuation continuation;
    private transient Object[] inputs;

    /** A task with no inputs: ready as soon as it is stored. */
    protected Task() {
        this(0);
    }

    /** A task that becomes ready when {@code arity} inputs have been stored into it. */
    protected Task(int arity) {
        if (arity < 0) {
            throw new IllegalArgumentException("arity must be >= 0: " + arity);
        }
        this.arity = arity;
    }

    /** Runs the task. Effects go through {@code context} and apply atomically when it returns normally. */
    public abstract void execute(TaskContext context);

    /** Number of inputs this task waits for. */
    public final int arity() {
        return arity;
    }

    /** Input {@code argNo}, available once the task runs. */
    @SuppressWarnings("unchecked")
    public final <T> T input(int argNo) {
        if (inputs == null || argNo < 0 || argNo >= inputs.length) {
            throw new IllegalStateException("input " + argNo + " is not available (arity " + arity + ")");
        }
        return (T) inputs[argNo];
    }

    /** This task's id, or {@code null} before it has been stored. */
    public final TaskId id() {
        return id;
    }

    /** Where this task's value goes, or {@code null} before it has been stored. */
    public final Continuation continuation() {
        return continuation;
    }

    /** Depth in the spawn tree ("DAG level"), 0 for the root. */
    public final int level() {
        return id == null ? 0 : id.level();
    }

    /**
     * The ordering key among tasks assigned equally often: higher first. Servers and producers never load
     * application classes (producers decode tasks only in the worker process that runs them), so this value is read
     * once, when the task is stored, and orders both the servers' ready heaps and the producers' caches. Default:
     * earliest DAG level first.
     */
    public long priority() {
        return -level();
    }

    /**
     * The paper's priority hook: whether this task should run before {@code other}. Compares {@link #priority()}.
     *
     * @deprecated not consulted: tasks are ordered by {@link #priority()}, read when they are stored, since neither
     *     servers nor producers run application code to compare two tasks. Override {@link #priority()} instead.
     */
    @Deprecated
    public boolean isHigherPriority(Task other) {
        return priority() > other.priority();
    }

    /**
     * The class whose code this task runs: its code bundle (the application jar it came from) is the one the
     * computation ships to producers when this task is a root. Default: the task's own class; a task that runs
     * code given to it (a {@link DivideAndConquer} template's, an executor's callable) names that code's class.
     */
    public Class<?> codeClass() {
        return getClass();
    }

    /**
     * Whether this task should run on the task server rather than on a producer (paper §3), e.g. a cheap composition
     * whose inputs are already there. Default: no.
     */
    public boolean executeOnServer() {
        return false;
    }

    /**
     * What happens when a second value is sent to an input of this task that already has one: with {@code false}
     * (the default) the computation fails, naming the task and the input, since each input takes one value and a
     * second one is a bug in whoever sent it; with {@code true} the first value to arrive is used and later ones
     * are dropped (e.g. a search that takes whichever answer is found first). Read once, when the task is stored.
     */
    public boolean firstInputWins() {
        return false;
    }
}
