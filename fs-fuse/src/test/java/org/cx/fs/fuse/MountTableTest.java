package org.cx.fs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a mount table as the kernel writes it (proc(5)). */
class MountTableTest {
    private static final String TABLE = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k
            61 27 0:52 / /tmp/with\\040space rw,nosuid,nodev,relatime shared:33 - fuse.cx cx rw,user_id=0,group_id=0
            62 27 0:53 / /tmp/plain rw,relatime shared:34 master:1 - fuse cx rw,user_id=0
            63 27 0:54 / /tmp/not-fuse rw,relatime - tmpfs tmpfs rw
            """;

    @TempDir
    Path dir;

    @Test
    void findsFuseMountsByTheirRealPath() throws IOException {
        Path table = Files.writeString(dir.resolve("mountinfo"), TABLE);
        assertTrue(MountTable.fuseAt(table, Path.of("/tmp/with space")), "an escaped space in the mount point");
        assertTrue(MountTable.fuseAt(table, Path.of("/tmp/plain")), "optional fields before the separator");
        assertFalse(MountTable.fuseAt(table, Path.of("/tmp/not-fuse")), "a mount of another type");
        assertFalse(MountTable.fuseAt(table, Path.of("/tmp/with")), "a prefix of a mount point");
        assertFalse(MountTable.fuseAt(table, Path.of("/tmp/gone")), "no mount there");
    }

    @Test
    void givesTheDeviceOfAFuseMount() {
        java.util.List<String> lines = TABLE.lines().toList();
        assertEquals(java.util.Optional.of("0:53"), MountTable.fuseDevice(lines, Path.of("/tmp/plain")));
        assertEquals(java.util.Optional.empty(), MountTable.fuseDevice(lines, Path.of("/tmp/not-fuse")));
    }

    @Test
    void cannotTellWithoutATable() {
        assertTrue(MountTable.fuseAt(dir.resolve("absent"), Path.of("/tmp/plain")));
    }

    @Test
    void undoesOctalEscapes() {
        assertEquals("a b\tc\\d", MountTable.unescape("a\\040b\\011c\\134d"));
        assertEquals("\\04", MountTable.unescape("\\04"), "too short to be an escape");
        assertEquals("\\09x", MountTable.unescape("\\09x"), "not octal");
    }
}
