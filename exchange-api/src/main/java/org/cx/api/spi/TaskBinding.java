package org.cx.api.spi;

import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskId;

/**
 * Lets the runtime set a task's id, continuation and inputs, which applications can read but not write. The
 * {@link Task} class installs the accessor when it is initialised.
 */
public final class TaskBinding {

    /** Implemented inside {@link Task}. */
    public interface Access {
        void bind(Task task, TaskId id, Continuation continuation, Object[] inputs);
    }

    private static volatile Access access;

    private TaskBinding() {
    }

    /** Called once, by {@link Task}'s static initialiser. */
    public static void install(Access a) {
        if (access != null) {
            throw new IllegalStateException("TaskBinding already installed");
        }
        access = a;
    }

    /** Binds runtime state to a task before it is executed or after it is stored. */
    public static void bind(Task task, TaskId id, Continuation continuation, Object[] inputs) {
        Access a = access;
        if (a == null) {
            initialise();
            a = access;
        }
        a.bind(task, id, continuation, inputs);
    }

    private static void initialise() {
        try {
            Class.forName(Task.class.getName(), true, Task.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
