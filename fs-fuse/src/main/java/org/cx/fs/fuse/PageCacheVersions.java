package org.cx.fs.fuse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cx.fs.Entry;

/**
 * Which version of a file the kernel's page cache may hold for the mount, by path: the one last opened there for
 * reading. Opening the same version again lets the kernel keep the pages it has, so a file read twice is fetched
 * once; any other version, written by any client, is other blobs and is read anew (close-to-open consistency holds).
 * A change through the mount forgets the path (a rename forgets every path, as it moves whole subtrees). Bounded:
 * the least recently opened paths are forgotten first, and a path forgotten is only read anew.
 */
final class PageCacheVersions {
    private static final int PATHS = 4096;

    /** A file's content as the namespace names it: its blobs, its size and its block checksums. */
    private record Version(List<Entry.Column> columns, long size, int crcs) {
        static Version of(Entry e) {
            return new Version(e.columns(), e.size(), e.crcs().hashCode());
        }
    }

    private final Map<String, Version> versions = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Version> eldest) {
            return size() > PATHS;
        }
    };

    /** Records that {@code path} is opened for reading as {@code e}; whether the pages cached for it are of {@code e}. */
    synchronized boolean opened(String path, Entry e) {
        Version now = Version.of(e);
        return now.equals(versions.put(path, now));
    }

    synchronized void forget(String path) {
        versions.remove(path);
    }

    synchronized void forgetAll() {
        versions.clear();
    }
}
