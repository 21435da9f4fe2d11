package org.cx.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TaskIdTest {

    @Test
    void pathIsTheSpawnTreePath() {
        TaskId root = TaskId.root(7);
        TaskId id = root.child(0).child(2).child(300);
        assertEquals(3, id.level());
        assertArrayEquals(new int[] {0, 2, 300}, id.indices());
        assertEquals("7:/0/2/300", id.toString());
        assertEquals("7:/", root.toString());
    }

    @Test
    void sameParentAndIndexGiveEqualIds() {
        TaskId a = TaskId.root(1).child(1).child(0);
        TaskId b = TaskId.root(1).child(1).child(0);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, TaskId.root(2).child(1).child(0));
        assertNotEquals(a, TaskId.root(1).child(0).child(1));
    }

    @Test
    void knowsItsParent() {
        TaskId parent = TaskId.root(3).child(200);
        assertEquals(true, parent.child(5).isChildOf(parent));
        assertEquals(false, parent.child(5).child(0).isChildOf(parent), "a grandchild");
        assertEquals(false, TaskId.root(3).child(201).child(5).isChildOf(parent), "another parent");
        assertEquals(false, TaskId.root(4).child(200).child(5).isChildOf(parent), "another computation");
    }

    @Test
    void roundTripsThroughItsEncodedPath() {
        TaskId id = TaskId.root(9).child(127).child(128).child(70000);
        assertEquals(id, TaskId.fromPath(9, id.pathBytes()));
        assertEquals(3, TaskId.fromPath(9, id.pathBytes()).level());
    }

    @Test
    void deepPathsOfSmallAndLargeIndicesKeepTheirLevels() {
        for (int large = 0; large <= 24; large++) { // a large index before, among and after runs of eight small ones
            TaskId id = TaskId.root(9);
            for (int level = 0; level < 24; level++) {
                id = id.child(level == large ? 300_000 : level % 2);
            }
            TaskId read = TaskId.fromPath(9, id.pathBytes());
            assertEquals(id, read, "large index at level " + large);
            assertEquals(24, read.level(), "large index at level " + large);
        }
        byte[] longVarintAfterEight = {0, 1, 0, 1, 0, 1, 0, 1, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, 1};
        assertThrows(IllegalArgumentException.class, () -> TaskId.fromPath(1, longVarintAfterEight));
        byte[] endsInsideAfterEight = {0, 1, 0, 1, 0, 1, 0, 1, 1, (byte) 0x80};
        assertThrows(IllegalArgumentException.class, () -> TaskId.fromPath(1, endsInsideAfterEight));
    }

    @Test
    void refusesTruncatedPaths() {
        assertThrows(IllegalArgumentException.class, () -> TaskId.fromPath(1, new byte[] {(byte) 0x80}));
        assertThrows(IllegalArgumentException.class,
                () -> TaskId.fromPath(1, new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1}));
        assertThrows(IllegalArgumentException.class, () -> TaskId.root(1).child(-1));
    }

    @Test
    void continuationChecksItsArguments() {
        assertThrows(IllegalArgumentException.class, () -> Continuation.to(TaskId.root(1), -1));
        assertThrows(NullPointerException.class, () -> Continuation.to(null, 0));
        assertEquals(true, Continuation.CONSUMER.isConsumer());
    }
}
