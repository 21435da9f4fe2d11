package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

class SessionOutboxTest {

    private static ReadyTask task(int i, int inputBytes) {
        return new ReadyTask(new TaskEnvelope(TaskId.root(1).child(i), Continuation.CONSUMER, 1, 0, false,
                new byte[10]), new byte[][] {new byte[inputBytes]});
    }

    @Test
    void assignmentsAreSplitSoThatEachFitsInAFrameInOrder() {
        List<ReadyTask> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tasks.add(task(i, 400));
        }
        tasks.add(task(5, 5_000)); // larger than a part: alone
        tasks.add(task(6, 10));
        List<ReadyTask[]> parts = SessionOutbox.inFrames(tasks, 1_200);
        assertEquals(List.of(2, 2, 1, 1, 1), parts.stream().map(p -> p.length).toList());
        List<ReadyTask> again = new ArrayList<>();
        parts.forEach(p -> again.addAll(List.of(p)));
        assertEquals(tasks, again, "nothing lost, nothing reordered");
        assertEquals(1, SessionOutbox.inFrames(tasks.subList(0, 1), 1_200).size());
        assertEquals(0, SessionOutbox.inFrames(List.of(), 1_200).size());
    }
}
