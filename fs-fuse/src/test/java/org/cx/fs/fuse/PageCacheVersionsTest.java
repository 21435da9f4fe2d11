package org.cx.fs.fuse;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cx.fs.Entry;
import org.junit.jupiter.api.Test;

/** The kernel keeps a file's pages only for the version it read last at that path. */
class PageCacheVersionsTest {
    private static Entry file(String blob, long size, int crc) {
        return new Entry(false, size, 0, "ann", 0644, 0, List.of(new Entry.Column(blob, List.of("fs-1"))),
                List.of(crc), "");
    }

    @Test
    void keepsPagesOnlyOfTheVersionReadLastThere() {
        PageCacheVersions cached = new PageCacheVersions();
        assertFalse(cached.opened("/a", file("b1", 10, 7)), "first read: nothing cached yet");
        assertTrue(cached.opened("/a", file("b1", 10, 7)), "the same version again");
        assertFalse(cached.opened("/a", file("b2", 10, 7)), "replaced elsewhere: other blobs");
        assertFalse(cached.opened("/a", file("b1", 10, 7)), "and back: the pages are of b2 now");
        assertFalse(cached.opened("/a", file("b1", 10, 8)), "the same blob with other content (linked in place)");
        assertFalse(cached.opened("/b", file("b1", 10, 8)), "another path");
        cached.forget("/a");
        assertFalse(cached.opened("/a", file("b1", 10, 8)), "changed through the mount");
        cached.forgetAll();
        assertFalse(cached.opened("/b", file("b1", 10, 8)), "after a rename");
    }

    @Test
    void forgetsTheLeastRecentlyOpenedPathsBeyondItsBound() {
        PageCacheVersions cached = new PageCacheVersions();
        for (int i = 0; i <= 4096; i++) {
            cached.opened("/f" + i, file("b" + i, 1, i));
        }
        assertFalse(cached.opened("/f0", file("b0", 1, 0)), "the eldest is forgotten");
        assertTrue(cached.opened("/f4096", file("b4096", 1, 4096)));
    }
}
