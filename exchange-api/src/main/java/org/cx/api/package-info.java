/**
 * The CX programming model (paper §3): a computation is a DAG of non-blocking {@link org.cx.api.Task}s.
 *
 * <p>A task runs only when all of its inputs have arrived and never waits for another task. Running it may store new
 * tasks ({@link org.cx.api.TaskContext#storeTask}) and values into inputs of successor tasks
 * ({@link org.cx.api.TaskContext#storeResult}). The value sent to the root task's continuation reaches the consumer's
 * {@link org.cx.api.ResultListener#processResult}. The spawn graph is a tree, so the path from the root is a unique
 * {@link org.cx.api.TaskId}; the runtime discards duplicate tasks and duplicate arguments by that id, which is what
 * makes a task's effects apply exactly once however many times it ran.
 *
 * <p>Nothing here depends on a transport: consumers reach "the" task server through {@link org.cx.api.TaskServer}.
 */
package org.cx.api;
