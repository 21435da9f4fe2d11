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
    void aRootThatHearsFromMostOfTheNetworkMayJudgeTheRest() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2, 3), 0);
        for (long now = 100 * MS; now <= 1_100 * MS; now += 100 * MS) { // member 3 silent: crashed, or cut off
            l.heard(2, now);
        }
        assertTrue(l.hearsMost(ROOT, 3, 1_100 * MS), "itself and member 2: two of three");
        assertFalse(l.rootCutOff(1_100 * MS));
    }

    @Test
    void aRootCutOffFromMostOfTheNetworkJudgesNobodyAndStopsATimeoutLater() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2, 3), 0);
        l.heard(2, 0);
        l.heard(3, 0);
        assertTrue(l.hearsMost(ROOT, 3, 500 * MS), "half a timeout of silence is not yet a minority");
        assertFalse(l.hearsMost(ROOT, 3, 501 * MS), "both silent: this root is the one cut off");
        assertFalse(l.hearsMost(ROOT, 3, 1_501 * MS));
        assertFalse(l.rootCutOff(1_501 * MS), "exactly a timeout in the minority is not yet cut off");
        assertTrue(l.rootCutOff(1_502 * MS));
        l.heard(2, 1_502 * MS);
        assertTrue(l.hearsMost(ROOT, 3, 1_502 * MS), "the cut healed");
        assertFalse(l.rootCutOff(1_502 * MS));
    }

    @Test
    void aNetworkOfTwoHasNoMajorityToLose() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.watch(List.of(ROOT, 2), 0);
        assertTrue(l.hearsMost(ROOT, 2, 5_000 * MS), "the secondary stops by itself when it is the one cut off");
        assertFalse(l.rootCutOff(5_000 * MS));
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

    @Test
    void aMemberIsCutOffAfterTwoTimeoutsWithoutAnAnswerFromItsRoot() {
        Liveness l = new Liveness(TIMEOUT, 0);
        long now = 0;
        for (; now <= 2_000 * MS; now += 100 * MS) { // beats every 100 ms; the root answered last at 0
            assertFalse(l.check(now));
        }
        assertFalse(l.cutOff(2_000 * MS), "exactly two timeouts is not yet too long");
        assertTrue(l.cutOff(2_001 * MS));
        l.rootAnswered(2_050 * MS); // a topology from a new root counts as an answer
        assertFalse(l.cutOff(4_000 * MS));
    }

    @Test
    void aBrokenConnectionToTheRootIsNotACutOff() {
        Liveness l = new Liveness(TIMEOUT, 0);
        l.rootAnswered(500 * MS);
        l.rootLost(550 * MS); // the primary crashed: the secondary's questions hear it is gone at once
        assertTrue(l.rootSilentFor(600 * MS, TIMEOUT / 2));
        assertFalse(l.cutOff(600 * MS), "the secondary replaces a crashed primary within about a timeout");
        assertTrue(l.cutOff(2_501 * MS));
    }

    @Test
    void aPauseOfThisProcessIsNotACutOff() {
        Liveness l = new Liveness(TIMEOUT, 0);
        assertTrue(l.check(2_500 * MS), "frozen for 2.5 s");
        assertFalse(l.cutOff(2_600 * MS), "after a pause the root's silence counts again from the pause on");
        assertTrue(l.cutOff(4_501 * MS));
    }

    /** The secondary of a network of two, with nobody to ask, takes over from a broken connection, never silence. */
    @Test
    void aRootLooksCrashedOnlyATimeoutAfterItsConnectionBroke() {
        Liveness silent = new Liveness(TIMEOUT, 0);
        assertFalse(silent.rootCrashed(3 * TIMEOUT), "silence alone: a cut, or a frozen primary");
        Liveness broken = new Liveness(TIMEOUT, 0);
        broken.rootLost(100 * MS);
        broken.rootLost(400 * MS); // the calls again fail: the break still counts from the first
        assertFalse(broken.rootCrashed(1_100 * MS), "exactly a timeout after the break is not yet enough");
        assertTrue(broken.rootCrashed(1_101 * MS));
        broken.rootAnswered(1_200 * MS);
        assertFalse(broken.rootCrashed(5_000 * MS), "it answered again");
    }
}
