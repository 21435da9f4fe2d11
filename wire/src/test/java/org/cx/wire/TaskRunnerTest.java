package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;
import org.cx.api.spi.TaskBinding;
import org.junit.jupiter.api.Test;

class TaskRunnerTest {

    /** Runs out of memory, as a task that allocates without limit does. */
    static final class Greedy extends Task {
        @Override
        public void execute(TaskContext context) {
            throw new OutOfMemoryError("Java heap space");
        }
    }

    @Test
    void aTaskThatRunsOutOfMemoryFailsSayingSoAndTheWorkerCarriesOn() {
        Task greedy = new Greedy();
        TaskBinding.bind(greedy, TaskId.root(7), Continuation.CONSUMER, new Object[0]);
        TaskRunner.Outcome outcome = TaskRunner.run(new BodyCodecs(getClass().getClassLoader()).forComputation(7),
                greedy);
        TaskRunner.Outcome.Failed failed = assertInstanceOf(TaskRunner.Outcome.Failed.class, outcome);
        assertTrue(failed.reason().contains("ran out of memory"), failed.reason());
    }
}
