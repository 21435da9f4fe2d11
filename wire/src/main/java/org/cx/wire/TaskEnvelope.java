package org.cx.wire;

import org.cx.api.Continuation;
import org.cx.api.TaskId;

/**
 * A stored task as servers see it: routing fields in the clear, the application object as opaque bytes.
 *
 * @param id           spawn-tree id
 * @param continuation where the task's value goes
 * @param arity        inputs to wait for
 * @param priority     {@link org.cx.api.Task#priority()} read when the task was stored
 * @param onServer     {@link org.cx.api.Task#executeOnServer()} read when the task was stored
 * @param firstInputWins {@link org.cx.api.Task#firstInputWins()} read when the task was stored
 * @param body         the task object, encoded by {@link BodyCodec}
 */
public record TaskEnvelope(TaskId id, Continuation continuation, int arity, long priority, boolean onServer,
                           boolean firstInputWins, byte[] body) {

    /** A task that takes one value per input (a second fails its computation). */
    public TaskEnvelope(TaskId id, Continuation continuation, int arity, long priority, boolean onServer,
                        byte[] body) {
        this(id, continuation, arity, priority, onServer, false, body);
    }

    /** The same task under another id (the server names a submitted root). */
    public TaskEnvelope withId(TaskId newId) {
        return new TaskEnvelope(newId, continuation, arity, priority, onServer, firstInputWins, body);
    }
}
