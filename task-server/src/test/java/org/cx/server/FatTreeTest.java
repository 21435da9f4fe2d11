package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.cx.testing.Seeds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class FatTreeTest {

    /** Fig. 4 of the paper with B = 2: ids equal join order 0..6. */
    @Test
    void sevenServersWithBranchingTwo() {
        FatTree t = FatTree.of(2, List.of(0, 1, 2, 3, 4, 5, 6));
        // Positions 0,1 roots; 2,3 children of 0; 4,5 children of 2; 6 child of 3.
        assertEquals(List.of(1), t.mirrorGroup(0));
        assertEquals(List.of(0), t.mirrorGroup(1));
        assertEquals(List.of(3), t.mirrorGroup(2));
        assertEquals(List.of(5), t.mirrorGroup(4));
        assertEquals(List.of(3), t.mirrorGroup(6), "a lone child is mirrored by its parent");
        assertEquals(Set.of(0, 1, 3, 4, 5, 6), Set.copyOf(t.neighbours(2)));
        assertEquals(Set.of(2, 3, 5), Set.copyOf(t.neighbours(4)), "parent, parent's sibling, sibling");
        assertEquals(Set.of(0, 1, 2, 4, 5, 6), Set.copyOf(t.neighbours(3)), "parent, its sibling, sibling, nephews, child");
        assertEquals(Set.of(0, 2, 3), Set.copyOf(t.neighbours(1)), "the other root: its sibling and the root's children");
        assertEquals(2, t.height());
        assertEquals(List.of(1, 2, 3), t.seedTargets(0), "the root seeds the other root and its children");
        assertEquals(List.of(), t.seedTargets(1));
        assertEquals(List.of(4, 5), t.seedTargets(2));
        assertEquals(List.of(6), t.seedTargets(3));
        assertEquals(List.of(), t.seedTargets(6));
    }

    @Test
    void smallTreesAndTheirMirrorGroups() {
        FatTree t = new FatTree(3);
        t.join(10);
        assertEquals(List.of(), t.mirrorGroup(10), "a lone server has nobody to mirror it");
        t.join(11);
        assertEquals(List.of(11), t.mirrorGroup(10));
        t.join(12);
        assertEquals(List.of(10), t.mirrorGroup(12), "the first child is mirrored by the root");
        t.join(13);
        assertEquals(List.of(13), t.mirrorGroup(12));
    }

    @Test
    void removingTheRootPromotesTheSecondRootAndMovesTheLastLeaf() {
        FatTree t = FatTree.of(2, List.of(0, 1, 2, 3, 4));
        FatTree.Repair r = t.remove(0);
        assertEquals(1, r.heir(), "the secondary root holds the root's mirror copy");
        assertEquals(List.of(1, 4, 2, 3), t.ids());
        assertEquals(2, r.moves().size());
    }

    @Test
    void removingAnInnerServerMovesTheLastLeafIntoTheHole() {
        FatTree t = FatTree.of(2, List.of(0, 1, 2, 3, 4, 5, 6));
        FatTree.Repair r = t.remove(2);
        assertEquals(3, r.heir());
        assertEquals(List.of(0, 1, 6, 3, 4, 5), t.ids());
        assertEquals(1, r.moves().size());
        FatTree.Repair last = t.remove(5);
        assertEquals(4, last.heir());
        assertTrue(last.moves().isEmpty(), "removing the last leaf moves nobody");
    }

    /** Random joins and failures from 1 to 100 servers keep every fat-tree invariant. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void randomJoinsAndRemovalsKeepTheInvariants(int branching) {
        long seed = Seeds.seed("FatTreeTest.random-B" + branching);
        SplittableRandom random = new SplittableRandom(seed);
        FatTree t = new FatTree(branching);
        List<Integer> live = new ArrayList<>();
        int nextId = 0;
        for (int step = 0; step < 600; step++) {
            boolean grow = live.size() < 2 || (live.size() < 100 && random.nextInt(3) > 0);
            if (grow) {
                t.join(nextId);
                live.add(nextId++);
            } else {
                int victim = live.remove(random.nextInt(live.size()));
                List<Integer> groupBefore = t.mirrorGroup(victim);
                FatTree.Repair r = t.remove(victim);
                assertTrue(r.moves().size() <= 2, "seed " + seed + ": a repair moves at most two servers");
                assertTrue(groupBefore.contains(r.heir()), "seed " + seed + ": the heir held the mirror copy");
                assertFalse(t.contains(victim));
            }
            checkInvariants(t, live, seed, step % 10 == 0);
        }
    }

    private static void checkInvariants(FatTree t, List<Integer> live, long seed, boolean diameterToo) {
        String where = "seed " + seed + ", " + t;
        assertEquals(new HashSet<>(live), new HashSet<>(t.ids()), where);
        int n = t.size();
        for (int id : t.ids()) {
            int p = t.position(id);
            assertEquals(id, t.idAt(p), where);
            List<Integer> group = t.mirrorGroup(id);
            if (n >= 2) {
                assertFalse(group.isEmpty(), where + ": " + id + " has no mirror group");
            }
            List<Integer> neighbours = t.neighbours(id);
            assertTrue(neighbours.containsAll(group), where + ": mirror group of " + id + " are neighbours");
            assertTrue(neighbours.size() <= t.neighbourBound(), where + ": " + id + " has " + neighbours.size());
            for (int other : neighbours) {
                assertTrue(t.neighbours(other).contains(id), where + ": edge " + id + "-" + other + " one-way");
            }
            if (p >= 2) {
                int parent = t.parent(p);
                assertTrue(t.children(parent).contains(p), where);
                assertEquals(t.depth(parent) + 1, t.depth(p), where);
            }
        }
        // Height-balanced: a complete B-ary heap of n-1 servers (the secondary root is beside it) is as low as any.
        int heap = n - 1;
        int minimalHeight = 0;
        for (long reach = 1, level = 1; reach < heap; minimalHeight++) {
            level *= t.branching();
            reach += level;
        }
        assertEquals(minimalHeight, t.height(), where);
        if (n >= 2 && diameterToo) {
            assertTrue(t.diameter() <= 2 * t.height() + 2, where + ": diameter " + t.diameter() + ", height " + t.height());
        }
    }
}
