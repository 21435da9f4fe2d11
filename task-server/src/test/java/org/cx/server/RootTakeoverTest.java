package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RootTakeoverTest {
    private static final int SELF = 2;

    /** Each row: network size, members answering silent, members answering alive; whether the secondary takes over. */
    @Test
    void theSecondaryTakesOverOnlyWhenMostOfTheNetworkLostThePrimary() {
        Object[][] table = {
            {7, 3, 0, true},   // 4 of 7 (itself and 3) lost it
            {7, 2, 3, false},  // 3 of 7: the primary still serves a majority
            {7, 0, 4, false},  // only the link between the two roots broke
            {3, 1, 0, true},   // 2 of 3
            {3, 0, 1, false},
            {4, 1, 1, false},  // 2 of 4 is not more than half
            {4, 2, 0, true},
        };
        for (Object[] row : table) {
            int size = (int) row[0];
            int silent = (int) row[1];
            int alive = (int) row[2];
            RootTakeover t = new RootTakeover();
            t.suspect(SELF);
            boolean took = false;
            int member = 10;
            for (int i = 0; i < alive; i++) {
                took |= t.answered(member++, false, size);
            }
            for (int i = 0; i < silent; i++) {
                took |= t.answered(member++, true, size);
            }
            assertEquals(row[3], took, "size " + size + ", " + silent + " silent, " + alive + " alive");
        }
    }

    @Test
    void aNetworkOfTwoHasNobodyToAsk() {
        assertTrue(RootTakeover.alone(2));
        assertFalse(RootTakeover.alone(3));
    }

    @Test
    void anAnswerCountsOnceAndOnlyWhileAsking() {
        RootTakeover t = new RootTakeover();
        assertFalse(t.answered(3, true, 3), "nobody asked");
        t.suspect(SELF);
        assertFalse(t.answered(SELF, true, 5), "its own vote is already counted");
        assertFalse(t.answered(3, true, 5));
        assertFalse(t.answered(3, true, 5), "the same member twice is one vote");
        t.settle();
        assertFalse(t.answered(4, true, 5), "the primary was heard again: the round is over");
        t.suspect(SELF);
        assertFalse(t.answered(4, true, 5), "a new round counts afresh");
        assertTrue(t.answered(5, true, 5));
        assertFalse(t.asking());
    }
}
