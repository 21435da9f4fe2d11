package org.cx.fs;

import java.util.ArrayList;
import java.util.List;

/**
 * A path in the federation's namespace: absolute, '/'-separated, normalized ({@code .} and empty names dropped,
 * {@code ..} taken back; never above the root). {@code cx:/a/b} and {@code /a/b} name the same entry.
 */
public record FsPath(List<String> names) {
    public static final FsPath ROOT = new FsPath(List.of());
    /** The prefix that marks a federation path on the command line. */
    public static final String SCHEME = "cx:";

    public FsPath {
        names = List.copyOf(names);
    }

    /**
     * Parses {@code text}; relative paths are taken from the root.
     *
     * @throws FsException EINVAL for a name with a NUL byte or longer than 255 bytes
     */
    public static FsPath of(String text) throws FsException {
        String t = text.startsWith(SCHEME) ? text.substring(SCHEME.length()) : text;
        List<String> names = new ArrayList<>();
        for (String name : t.split("/")) {
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                if (!names.isEmpty()) {
                    names.remove(names.size() - 1);
                }
                continue;
            }
            if (name.indexOf('\0') >= 0 || name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
                throw new FsException(FsException.Code.EINVAL, "'" + text.replace('\0', '?')
                        + "' is not a path: a name has a NUL byte or is longer than 255 bytes");
            }
            names.add(name);
        }
        return new FsPath(names);
    }

    public boolean isRoot() {
        return names.isEmpty();
    }

    /** The last name; empty for the root. */
    public String name() {
        return isRoot() ? "" : names.get(names.size() - 1);
    }

    /** The parent directory; the root's parent is the root. */
    public FsPath parent() {
        return isRoot() ? this : new FsPath(names.subList(0, names.size() - 1));
    }

    public FsPath child(String name) throws FsException {
        return of(this + "/" + name);
    }

    /** Whether {@code other} is this path or below it. */
    public boolean contains(FsPath other) {
        return other.names.size() >= names.size() && other.names.subList(0, names.size()).equals(names);
    }

    @Override
    public String toString() {
        return "/" + String.join("/", names);
    }
}
