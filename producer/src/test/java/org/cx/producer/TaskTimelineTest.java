package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cx.api.TaskId;
import org.junit.jupiter.api.Test;

class TaskTimelineTest {

    @Test
    void keepsNothingUnlessAskedTo() {
        TaskTimeline off = new TaskTimeline(2, false);
        off.record(1, 10, 20, TaskId.root(7), "Fib");
        assertFalse(off.enabled());
        assertTrue(off.between(0, 100).isEmpty());
    }

    @Test
    void listsTheRunsThatStartedInTheWindow() {
        TaskTimeline timeline = new TaskTimeline(2, true);
        TaskId root = TaskId.root(7);
        timeline.record(0, 5, 15, root, "Fib"); // started before the window: another run's
        timeline.cached(root.child(1), 8);
        timeline.record(0, 10, 20, root.child(1), "Fib");
        timeline.record(1, 12, 40, root.child(2), "Fib"); // ends after it: still this run's; claimed
        timeline.record(1, 30, 31, root.child(0), "Sum");
        List<TaskTimeline.Span> spans = timeline.between(10, 30);
        assertEquals(List.of(new TaskTimeline.Span(0, 10, 20, root.child(1), "Fib", 8),
                new TaskTimeline.Span(1, 12, 40, root.child(2), "Fib", TaskTimeline.CLAIMED)), spans);
    }

    @Test
    void dropsTheOldestBeyondItsBound() {
        TaskTimeline timeline = new TaskTimeline(1, true);
        for (int i = 0; i <= TaskTimeline.MAX_SPANS; i++) {
            timeline.record(0, i, i + 1, TaskId.root(i), "Fib");
        }
        List<TaskTimeline.Span> spans = timeline.between(0, Long.MAX_VALUE);
        assertEquals(TaskTimeline.MAX_SPANS, spans.size());
        assertEquals(1, spans.getFirst().startNanos());
    }
}
