package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DutyCycleTest {

    private long now = 1_000;
    private final List<Long> wakeUps = new ArrayList<>();
    private final List<String> ran = new ArrayList<>();
    private final DutyCycle cycle = new DutyCycle(() -> now, wakeUps::add);

    {
        cycle.endOfBurstDoes(() -> ran.add("flush"));
    }

    @Test
    void periodicDutiesRunWhenDueAndEveryCycleThatDidWorkEndsWithOneFlush() {
        cycle.every(10, () -> ran.add("fast"));
        cycle.every(25, () -> ran.add("slow"));
        assertEquals(List.of(1_010L, 1_025L), wakeUps);
        assertEquals(1_010, cycle.nextDueNanos());
        now = 1_009;
        assertEquals(0, cycle.doWork());
        assertEquals(List.of(), ran, "nothing due: no flush either");
        now = 1_010;
        assertEquals(1, cycle.doWork());
        now = 1_025;
        assertEquals(2, cycle.doWork());
        assertEquals(List.of("fast", "flush", "fast", "slow", "flush"), ran);
        assertEquals(1_030, cycle.nextDueNanos());
    }

    @Test
    void aDutyThatFellBehindRunsOnceAndIsDueAgainOnePeriodFromNow() {
        cycle.every(10, () -> ran.add("beat"));
        now = 1_015; // a little late: stays on its grid
        assertEquals(1, cycle.doWork());
        assertEquals(1_020, cycle.nextDueNanos());
        now = 1_095; // paused for seven periods
        assertEquals(1, cycle.doWork());
        assertEquals(List.of("beat", "flush", "beat", "flush"), ran, "once, not seven times");
        assertEquals(1_105, cycle.nextDueNanos(), "due again one period from now");
    }

    @Test
    void oneShotsRunInTimeOrderThenInTheOrderTheyWereAdded() {
        cycle.after(30, () -> ran.add("c"));
        cycle.after(10, () -> ran.add("a"));
        cycle.after(10, () -> ran.add("b"));
        cycle.after(-5, () -> ran.add("now"));
        assertEquals(List.of(1_030L, 1_010L, 1_010L, 1_000L), wakeUps);
        cycle.doWork();
        now = 1_030;
        cycle.doWork();
        assertEquals(List.of("now", "flush", "a", "b", "c", "flush"), ran);
        assertEquals(Long.MAX_VALUE, cycle.nextDueNanos());
    }

    @Test
    void aCommandToItselfRunsInTheNextCycleAndOneItAddsWaitsForTheOneAfter() {
        cycle.soon(() -> {
            ran.add("first");
            cycle.soon(() -> ran.add("second"));
        });
        assertEquals(now, cycle.nextDueNanos());
        assertEquals(1, cycle.doWork());
        assertEquals(1, cycle.doWork());
        assertEquals(List.of("first", "flush", "second", "flush"), ran);
    }

    @Test
    void aPeriodMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> cycle.every(0, () -> { }));
    }
}
