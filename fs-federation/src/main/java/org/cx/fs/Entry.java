package org.cx.fs;

import java.util.List;

/**
 * What the namespace knows of one directory or file. A file's bytes are one blob on one file server, checked in
 * blocks of {@link Blocks#SIZE} bytes by their CRC32C.
 *
 * @param directory whether this is a directory
 * @param size      the file's length in bytes (0 for a directory)
 * @param mtime     the last change, milliseconds since the epoch
 * @param owner     the identity that made it
 * @param mode      permission bits as in Unix ({@code 0644}); owner and others, no groups
 * @param server    the file server that holds the bytes (its id), null for a directory
 * @param blob      the blob's name on that server: an id, or {@code @path} for a file linked in place
 * @param crcs      the CRC32C of each block, in order
 */
public record Entry(boolean directory, long size, long mtime, String owner, int mode, String server, String blob,
                    List<Integer> crcs) {
    public Entry {
        crcs = crcs == null ? List.of() : List.copyOf(crcs);
    }

    static Entry directory(String owner, int mode, long now) {
        return new Entry(true, 0, now, owner, mode, null, null, List.of());
    }

    /** Whether the bytes were on the file server's disk before and stay there when the entry is removed. */
    public boolean linked() {
        return blob != null && blob.startsWith("@");
    }

    Entry touched(long now) {
        return new Entry(directory, size, now, owner, mode, server, blob, crcs);
    }

    /** {@code ls -l}'s first column: {@code drwxr-xr-x}. */
    public String modeString() {
        StringBuilder b = new StringBuilder(directory ? "d" : "-");
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            b.append((mode & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        if ((mode & 01000) != 0) {
            b.setCharAt(9, (mode & 1) != 0 ? 't' : 'T');
        }
        return b.toString();
    }
}
