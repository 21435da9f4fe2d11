package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LivenessTest {

    private static final long MS = 1_000_000L;
    private static final long TIMEOUT = 1_000 * MS;
    private static final int ROOT = 1;

    @Test
    void aMemberSilentLongerThanTheTimeoutIsFailed() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2, 3), 0);
        long now = 0;
        for (; now <= 1_000 * MS; now += 100 * MS) { // heartbeats every 100 ms; member 3 stays silent
            assertFalse(l.check(now));
            l.heard(2, now);
        }
        assertEquals(List.of(), l.silentMembers(ROOT, 1_000 * MS), "exactly the timeout is not yet too long");
        assertFalse(l.check(1_100 * MS));
        l.heard(2, 1_100 * MS);
        assertEquals(List.of(new Liveness.Silent(3, 1_100 * MS)), l.silentMembers(ROOT, 1_100 * MS));
    }

    @Test
    void theRootNeverJudgesItself() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT), 0);
        assertEquals(List.of(), l.silentMembers(ROOT, 5_000 * MS));
    }

    @Test
    void aPauseOfThisProcessRestartsEveryClockInsteadOfFailingEveryone() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2), 0);
        assertFalse(l.check(100 * MS));
        assertTrue(l.check(3_000 * MS), "more than half the timeout since the last check: this process was frozen");
        assertEquals(List.of(), l.silentMembers(ROOT, 3_000 * MS));
        assertEquals(0, l.rootSilentNanos(3_000 * MS));
        assertEquals(List.of(new Liveness.Silent(2, 1_001 * MS)), l.silentMembers(ROOT, 4_001 * MS),
                "and silence counts again from the pause on");
    }

    @Test
    void theSecondaryRootJudgesASilentPrimary() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.rootAnswered(200 * MS);
        assertEquals(0, l.rootSilentNanos(1_200 * MS));
        assertEquals(1_001 * MS, l.rootSilentNanos(1_201 * MS));
    }

    @Test
    void aNewRootGivesEveryMemberATimeoutOfGrace() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.graceUntil(List.of(2, 3), 2_000 * MS);
        assertEquals(List.of(), l.silentMembers(ROOT, 2_900 * MS));
        assertEquals(2, l.silentMembers(ROOT, 3_001 * MS).size());
    }

    @Test
    void membersThatLeftAreForgottenAndNewOnesStartNow() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2), 0);
        l.watch(List.of(ROOT, 3), 900 * MS);
        assertEquals(List.of(), l.silentMembers(ROOT, 1_500 * MS), "2 left; 3 joined at 900 ms");
        l.forget(3);
        assertEquals(List.of(), l.silentMembers(ROOT, 5_000 * MS));
    }
}
