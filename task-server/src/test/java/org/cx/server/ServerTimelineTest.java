package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cx.api.TaskId;
import org.junit.jupiter.api.Test;

class ServerTimelineTest {

    @Test
    void keepsNothingUnlessAskedTo() {
        ServerTimeline off = new ServerTimeline(false);
        off.record("stored", TaskId.root(1), "submitted");
        assertTrue(off.between(Long.MIN_VALUE, Long.MAX_VALUE).isEmpty());
    }

    @Test
    void listsTheDecisionsOfTheWindowInOrder() {
        ServerTimeline timeline = new ServerTimeline(true);
        TaskId root = TaskId.root(1);
        timeline.record("stored", root, "submitted");
        long from = lastNanos(timeline) + 1;
        awaitClock(from);
        timeline.record("assigned", root, "p0");
        timeline.record("revoked", root, "p0");
        long to = lastNanos(timeline) + 1;
        awaitClock(to);
        timeline.record("assigned", root, "p1");
        List<ServerTimeline.Event> window = timeline.between(from, to);
        assertEquals(List.of("assigned", "revoked"), window.stream().map(ServerTimeline.Event::what).toList());
        assertEquals("p0", window.getFirst().how());
    }

    private static long lastNanos(ServerTimeline timeline) {
        return timeline.between(Long.MIN_VALUE, Long.MAX_VALUE).getLast().nanos();
    }

    /** Spins until {@code System.nanoTime()} reaches {@code nanos}: the next event is then recorded after it. */
    private static void awaitClock(long nanos) {
        while (System.nanoTime() < nanos) {
            Thread.onSpinWait();
        }
    }
}
