package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NeedSplitTest {

    private static int[] shares(int need, long[] weights) {
        int[] shares = new int[weights.length];
        for (int i = 0; i < weights.length; i++) {
            shares[i] = NeedSplit.share(need, weights, i);
        }
        return shares;
    }

    @Test
    void sharesFollowTheWeightsAndTheRemainderGoesToTheHeaviest() {
        assertEquals("[3, 1, 0]", Arrays.toString(shares(4, new long[] {3, 1, 0})));
        assertEquals("[1, 0, 0]", Arrays.toString(shares(1, new long[] {2, 2, 0})), "tie: the first");
        assertEquals("[0, 1, 0]", Arrays.toString(shares(1, new long[] {1, 5, 0})));
        assertEquals("[3, 2, 0]", Arrays.toString(shares(5, new long[] {4, 4, 1})));
        assertEquals("[0, 0, 0]", Arrays.toString(shares(0, new long[] {4, 4, 1})));
    }

    @Test
    void needNextDoorIsPassedOnToTheNeighboursThatCanGiveExceptItsOwn() {
        assertEquals("[3, 0, 0]", Arrays.toString(NeedSplit.passedOn(new int[] {0, 3, 0}, 0, new long[] {5, 0, 0})));
        assertEquals("[2, 0, 0]", Arrays.toString(NeedSplit.passedOn(new int[] {0, 3, 0}, 1, new long[] {5, 0, 0})),
                "what this server can give itself is not passed on");
        assertEquals("[0, 0, 0]", Arrays.toString(NeedSplit.passedOn(new int[] {0, 3, 0}, 3, new long[] {5, 0, 0})));
        assertEquals("[3, 0, 0]", Arrays.toString(NeedSplit.passedOn(new int[] {4, 3, 0}, 0, new long[] {5, 0, 0})),
                "a neighbour is not asked to feed its own idle workers through this server");
        assertEquals("[2, 0, 2]", Arrays.toString(NeedSplit.passedOn(new int[] {0, 4, 0}, 0, new long[] {1, 0, 1})));
        assertEquals("[0, 0, 0]", Arrays.toString(NeedSplit.passedOn(new int[] {0, 4, 0}, 0, new long[3])),
                "nobody reported anything to give: the need stays here");
    }

    @Test
    void withNoWeightEveryNeighbourIsAskedForAnEvenShareRoundedUp() {
        assertEquals("[1, 1, 1]", Arrays.toString(shares(1, new long[3])));
        assertEquals("[1, 1, 1]", Arrays.toString(shares(3, new long[3])));
        assertEquals("[2, 2, 2]", Arrays.toString(shares(4, new long[3])));
        assertEquals("[0, 0, 0]", Arrays.toString(shares(0, new long[3])));
    }

    @Test
    void sharesAddUpToTheNeedAndNeverGoWhereNothingIs() {
        long seed = System.nanoTime();
        System.out.println("NeedSplitTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 10_000; round++) {
            int k = 1 + random.nextInt(12);
            long[] weights = new long[k];
            boolean any = false;
            for (int i = 0; i < k; i++) {
                weights[i] = random.nextInt(3) == 0 ? 0 : random.nextInt(100);
                any |= weights[i] > 0;
            }
            int need = random.nextInt(80);
            int[] shares = shares(need, weights);
            int sum = 0;
            for (int i = 0; i < k; i++) {
                sum += shares[i];
                if (any && weights[i] == 0) {
                    assertEquals(0, shares[i], "seed " + seed + ": a neighbour with nothing to give is asked for none");
                }
            }
            if (any) {
                assertEquals(need, sum, "seed " + seed + ": the shares add up to the need");
            } else {
                assertTrue(sum >= need && sum < need + k, "seed " + seed + ": even shares rounded up, " + sum);
            }
        }
    }
}
