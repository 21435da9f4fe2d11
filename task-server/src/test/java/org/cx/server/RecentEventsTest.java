package org.cx.server;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The recent membership changes: kept in order, the oldest dropped beyond the capacity. */
class RecentEventsTest {
    @Test
    void keepsTheLastEventsInOrderAndDropsTheOldest() {
        RecentEvents events = new RecentEvents(3);
        assertEquals(List.of(), events.list());
        for (int i = 1; i <= 5; i++) {
            events.record(i * 1_000L, "event " + i);
        }
        assertEquals(List.of("event 3", "event 4", "event 5"),
                events.list().stream().map(RecentEvents.Event::what).toList());
        assertEquals(3_000L, events.list().get(0).atNanos());
        assertThrows(IllegalArgumentException.class, () -> new RecentEvents(0));
    }
}
