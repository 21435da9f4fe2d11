package org.cx.fs;

import java.util.List;

/**
 * What the namespace knows of one directory or file. A file's bytes are cut into blocks of {@link Blocks#SIZE}, each
 * checked by its CRC32C; consecutive runs of {@code stripeSize} bytes go round-robin to the file's columns (one
 * column: no striping), and each column is one blob kept on one or more file servers (its replicas).
 *
 * @param directory  whether this is a directory
 * @param size       the file's length in bytes (0 for a directory)
 * @param mtime      the last change, milliseconds since the epoch
 * @param owner      the identity that made it
 * @param mode       permission bits as in Unix ({@code 0644}); owner and others, no groups
 * @param stripeSize bytes of a stripe unit, a multiple of the block size
 * @param columns    where the bytes are, in stripe order; empty for a directory
 * @param crcs       the CRC32C of each block of the file, in order
 * @param only       the file servers its bytes may be on ({@link OnlyOn}; empty: any)
 */
public record Entry(boolean directory, long size, long mtime, String owner, int mode, long stripeSize,
                    List<Column> columns, List<Integer> crcs, String only) {
    public Entry {
        columns = columns == null ? List.of() : List.copyOf(columns);
        crcs = crcs == null ? List.of() : List.copyOf(crcs);
        only = only == null ? "" : only;
    }

    /** An entry whose bytes may be on any file server. */
    public Entry(boolean directory, long size, long mtime, String owner, int mode, long stripeSize,
                 List<Column> columns, List<Integer> crcs) {
        this(directory, size, mtime, owner, mode, stripeSize, columns, crcs, "");
    }

    /**
     * One column of a file: a blob, the same on each of its servers.
     *
     * @param blob    its name on the file servers: an id, or {@code @path} for a file linked in place
     * @param servers the ids of the file servers that hold it
     */
    public record Column(String blob, List<String> servers) {
        public Column {
            servers = List.copyOf(servers);
        }
    }

    static Entry directory(String owner, int mode, long now) {
        return new Entry(true, 0, now, owner, mode, 0, List.of(), List.of());
    }

    /** Whether the bytes were on the file server's disk before and stay there when the entry is removed. */
    public boolean linked() {
        return columns.size() == 1 && columns.get(0).blob().startsWith("@");
    }

    /** How this file's blocks map onto its columns. */
    public Layout layout() {
        return new Layout(size, stripeSize, columns.size());
    }

    Entry touched(long now) {
        return new Entry(directory, size, now, owner, mode, stripeSize, columns, crcs, only);
    }

    Entry withColumns(List<Column> replaced) {
        return new Entry(directory, size, mtime, owner, mode, stripeSize, replaced, crcs, only);
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
