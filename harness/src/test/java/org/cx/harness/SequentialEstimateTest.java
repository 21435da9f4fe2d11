package org.cx.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SequentialEstimateTest {

    /** The paper's example: T1(5) = 27 s, T1(7) = 66 s (22 and 61 tasks) give alpha = 5 s, beta = 1 s. */
    @Test
    void solvesThePapersExample() {
        SequentialEstimate e = SequentialEstimate.fit(5, 27, 7, 66);
        assertEquals(5, e.alphaS(), 1e-9);
        assertEquals(1, e.betaS(), 1e-9);
        assertEquals(5 + 3 * 6765 - 2, e.seconds(19), 1e-6); // T(19) = 3F(20) - 2
    }

    @Test
    void refusesTwoRunsOfTheSameSize() {
        assertThrows(IllegalArgumentException.class, () -> SequentialEstimate.fit(6, 1, 6, 2));
    }
}
