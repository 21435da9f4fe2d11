package org.cx.fs.nio;

import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.cx.fs.Entry;

/** An entry's attributes as NIO reads them; groups do not exist in the federation, so every entry's is "cx". */
record CxAttributes(Entry entry) implements PosixFileAttributes {
    private record Principal(String getName) implements UserPrincipal, GroupPrincipal {
    }

    @Override
    public FileTime lastModifiedTime() {
        return FileTime.fromMillis(entry.mtime());
    }

    @Override
    public FileTime lastAccessTime() {
        return lastModifiedTime();
    }

    @Override
    public FileTime creationTime() {
        return lastModifiedTime();
    }

    @Override
    public boolean isRegularFile() {
        return !entry.directory();
    }

    @Override
    public boolean isDirectory() {
        return entry.directory();
    }

    @Override
    public boolean isSymbolicLink() {
        return false;
    }

    @Override
    public boolean isOther() {
        return false;
    }

    @Override
    public long size() {
        return entry.size();
    }

    @Override
    public Object fileKey() {
        return null;
    }

    @Override
    public UserPrincipal owner() {
        return new Principal(entry.owner());
    }

    @Override
    public GroupPrincipal group() {
        return new Principal("cx");
    }

    @Override
    public Set<PosixFilePermission> permissions() {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] all = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < 9; bit++) {
            if ((entry.mode() & (1 << bit)) != 0) {
                out.add(all[bit]);
            }
        }
        return out;
    }

    /** The attributes {@code Files.readAttributes(path, "posix:*")} asks for, by name. */
    Map<String, Object> asMap(String view) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lastModifiedTime", lastModifiedTime());
        m.put("lastAccessTime", lastAccessTime());
        m.put("creationTime", creationTime());
        m.put("size", size());
        m.put("isRegularFile", isRegularFile());
        m.put("isDirectory", isDirectory());
        m.put("isSymbolicLink", false);
        m.put("isOther", false);
        m.put("fileKey", null);
        if (!view.equals("basic")) {
            m.put("owner", owner());
            m.put("group", group());
            m.put("permissions", permissions());
        }
        return m;
    }
}
