package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.cx.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DiffusionPolicyTest {

    private static final long MS = 1_000_000L;

    /** fresh, demand, idleWaiting, queued, workers. */
    private static Diffusion.Local local(int fresh, int demand, int idle, int queued, int workers) {
        return new Diffusion.Local(fresh, demand, idle, queued, workers);
    }

    private static Message.Load load(int from, int fresh, int demand, int need, int workers, int queued, int beyond) {
        return new Message.Load(from, fresh, demand, need, workers, queued, beyond);
    }

    @ParameterizedTest(name = "mine fresh {0} demand {1}, theirs fresh {2} demand {3} workers {4}, 2 neighbours")
    @CsvSource({
        // mine surplus - theirs >= 2: a third of the difference, at least 1, at most my surplus and 64
        "10, 0, 0, 0, 4, 3, false",
        "3, 1, 0, 0, 4, 1, false",
        "300, 0, 0, 0, 4, 64, false",
        "10, 0, 0, 0, 0, 0, false",   // no workers there: tasks would only wait
        "1, 0, 0, 0, 4, 0, false",    // difference 1: nothing moves
        "0, 0, 5, 0, 4, 0, true",     // theirs clearly larger: ask with my load
        "0, 3, 5, 4, 4, 0, true",     // theirs 1, mine -3: ask
    })
    void surplusMovesDownhillAndAShortServerAsks(int fresh, int demand, int theirFresh, int theirDemand,
                                                 int theirWorkers, int transfer, boolean answers) {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3));
        Diffusion.Local mine = local(fresh, demand, 0, 0, 4);
        Message.Load theirs = load(2, theirFresh, theirDemand, 0, theirWorkers, 0, 0);
        assertEquals(transfer, d.transferCount(mine, theirs));
        assertEquals(answers, d.answers(mine, theirs));
    }

    @Test
    void aServerWithoutWorkersNeverAsks() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2));
        assertFalse(d.answers(local(0, 0, 0, 0, 0), load(2, 9, 0, 0, 4, 0, 0)));
    }

    @Test
    void needIsAskedOfTheNeighboursThatCanGiveInProportion() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3, 4));
        d.reported(load(2, 6, 0, 0, 1, 0, 0));  // can give 6
        d.reported(load(3, 0, 0, 0, 1, 2, 0));  // 2 queued copies
        d.reported(load(4, 1, 5, 0, 1, 0, 0));  // wants more than it has
        assertArrayEquals(new int[] {3, 1, 0}, d.sharesOfNeed(local(0, 0, 4, 0, 4)));
        assertArrayEquals(new int[] {0, 0, 0}, d.sharesOfNeed(local(4, 0, 4, 0, 4)), "fresh tasks cover the need");
    }

    @Test
    void feedingCountsAgainstWhatANeighbourAskedFor() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3));
        assertFalse(d.heardNeeds());
        d.reported(load(2, 0, 0, 3, 1, 0, 2)); // 3 idle of its own, 2 passed on
        d.reported(load(3, 0, 0, 0, 1, 0, 0));
        assertTrue(d.heardNeeds());
        assertEquals(List.of(Map.entry(2, 5)), d.asking());
        assertEquals(5, d.remoteIdle());
        d.fed(2, 4);
        assertEquals(1, d.wants(2));
        assertEquals(1, d.remoteIdle());
        d.seeded(2);
        assertEquals(0, d.wants(2));
        assertEquals(List.of(), d.asking());
    }

    @Test
    void needNextDoorIsPassedOnOnlyBeyondWhatThisServerCanGive() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3));
        d.reported(load(2, 0, 0, 3, 1, 0, 0)); // 3 idle there
        d.reported(load(3, 8, 0, 0, 1, 0, 0)); // 8 to give
        assertArrayEquals(new int[] {0, 2}, d.sharesBeyond(local(0, 0, 0, 1, 4)),
                "one queued copy here covers one of the three; the rest is asked of 3, never of 2 itself");
        assertEquals(2, d.reportedNeed(local(0, 0, 0, 1, 4)));
        assertEquals(4, d.reportedNeed(local(0, 0, 2, 1, 4)), "two idle here too");
    }

    @Test
    void idleWorkersFurtherAwayAreToldOneHopFurtherLessWhatThisServerCanGive() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3, 4));
        assertEquals(new Diffusion.Far(0, 3), d.far(local(1, 0, 4, 0, 4), 2), "three of its own workers are idle");
        assertEquals(Diffusion.Far.NOWHERE, d.far(local(0, 0, 0, 0, 0), 2), "nothing heard yet");
        d.reported(new Message.Load(2, 0, 0, 0, 0, 0, 0, 2, 5));
        d.reported(new Message.Load(3, 0, 0, 0, 0, 0, 0, 1, 4));
        d.reported(new Message.Load(4, 0, 0, 0, 0, 0, 0, 1, 6));
        assertEquals(new Diffusion.Far(2, 6), d.far(local(0, 0, 0, 0, 0), 2), "the nearest, and the most of those");
        assertEquals(new Diffusion.Far(2, 4), d.far(local(0, 0, 0, 0, 0), 4), "never told back where it came from");
        assertEquals(new Diffusion.Far(2, 2), d.far(local(5, 1, 1, 0, 1), 2), "a surplus of four here goes there");
        assertEquals(Diffusion.Far.NOWHERE, d.far(local(7, 0, 0, 0, 1), 2), "this server covers them itself");
        assertEquals(new Diffusion.Far(2, 6), d.far(local(7, 7, 0, 0, 4), 2), "its producers asked for its tasks");
        d.reported(new Message.Load(4, 0, 0, 0, 0, 0, 0, Diffusion.MAX_HOPS, 6));
        d.reported(new Message.Load(3, 0, 0, 0, 0, 0, 0, Message.Load.NOWHERE, 0));
        assertEquals(new Diffusion.Far(3, 5), d.far(local(0, 0, 0, 0, 0), 2 + 100), "too far is not heard of");
    }

    @Test
    void spareTasksGoDownhillToTheNeighbourNearestIdleWorkersThatDidNotAsk() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3, 4));
        assertEquals(-1, d.downhill());
        d.reported(new Message.Load(2, 0, 0, 0, 0, 0, 0, 3, 8));
        d.reported(new Message.Load(3, 0, 0, 0, 0, 0, 0, 2, 2));
        d.reported(new Message.Load(4, 0, 0, 0, 4, 0, 0, 0, 4)); // its own idle workers: it asks for itself
        assertEquals(3, d.downhill());
        assertEquals(2, d.downhillRoom(3));
        d.fed(3, 2);
        assertEquals(2, d.downhill(), "3 took what it told of; 2 is next");
        d.reported(new Message.Load(2, 0, 0, 0, 0, 0, 1, 3, 8)); // 2 passes on need to this server
        assertEquals(-1, d.downhill(), "what a neighbour asks for is fed as need, not downhill as well");
    }

    @Test
    void aChangedNeedIsToldAtOnceButAtMostOnceAMillisecond() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2));
        Diffusion.Local idle = local(0, 0, 2, 0, 2);
        Diffusion.Local busy = local(0, 0, 0, 0, 2);
        d.reportSent(busy, 10 * MS);
        assertEquals(-1, d.reportWaitNanos(busy, 10 * MS), "nothing changed");
        assertEquals(MS / 2, d.reportWaitNanos(idle, 10 * MS + MS / 2));
        assertEquals(0, d.reportWaitNanos(idle, 11 * MS));
        d.reportSent(idle, 11 * MS);
        assertEquals(-1, d.reportWaitNanos(idle, 12 * MS));
    }

    @Test
    void whatWasKnownOfAFormerNeighbourIsForgotten() {
        Diffusion d = new Diffusion();
        d.neighbours(List.of(2, 3));
        d.reported(load(2, 0, 0, 3, 1, 0, 0));
        d.neighbours(List.of(3));
        assertEquals(0, d.remoteIdle());
        assertFalse(d.heardNeeds());
    }
}
