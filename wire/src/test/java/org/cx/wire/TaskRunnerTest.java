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

    /** Sends its value twice to the same input. */
    static final class Twice extends Task {
        @Override
        public void execute(TaskContext context) {
            context.sendResult(1L);
            context.sendResult(2L);
        }
    }

    /** Stores a child whose field holds a lambda. */
    static final class SpawnsALambda extends Task {
        @Override
        public void execute(TaskContext context) {
            context.storeTask(new WithLambda(), context.continuation());
        }
    }

    static final class WithLambda extends Task {
        private final Runnable onDone = () -> { };

        @Override
        public void execute(TaskContext context) {
            onDone.run();
        }
    }

    private TaskRunner.Outcome.Failed runToFailure(Task task) {
        TaskBinding.bind(task, TaskId.root(7), Continuation.CONSUMER, new Object[0]);
        TaskRunner.Outcome outcome = TaskRunner.run(new BodyCodecs(getClass().getClassLoader()).forComputation(7),
                task);
        return assertInstanceOf(TaskRunner.Outcome.Failed.class, outcome);
    }

    @Test
    void aTaskThatRunsOutOfMemoryFailsSayingSoAndTheWorkerCarriesOn() {
        TaskRunner.Outcome.Failed failed = runToFailure(new Greedy());
        assertTrue(failed.reason().contains("ran out of memory"), failed.reason());
    }

    @Test
    void aSecondValueToTheSameInputIsRefusedWhereItIsSent() {
        String reason = runToFailure(new Twice()).reason();
        assertTrue(reason.contains("sent a second value to the consumer in one run"), reason);
        assertTrue(reason.contains("TaskRunnerTest$Twice.execute"), "the stack points at the second send: " + reason);
    }

    @Test
    void aTaskHoldingALambdaIsRefusedWhereItIsStoredNamingClassAndField() {
        String reason = runToFailure(new SpawnsALambda()).reason();
        assertTrue(reason.contains("cannot encode task " + WithLambda.class.getName()), reason);
        assertTrue(reason.contains("is a lambda") && reason.contains("onDone (" + WithLambda.class.getName() + ")"),
                reason);
        assertTrue(reason.contains("SpawnsALambda.execute"), "the stack points at storeTask: " + reason);
    }
}
