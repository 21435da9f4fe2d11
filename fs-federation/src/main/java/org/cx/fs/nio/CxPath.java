package org.cx.fs.nio;

import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** A path in a {@link CxFileSystem}: names separated by '/', absolute when it starts with '/'. */
final class CxPath implements Path {
    private final CxFileSystem fs;
    private final boolean absolute;
    private final List<String> names;

    CxPath(CxFileSystem fs, boolean absolute, List<String> names) {
        this.fs = fs;
        this.absolute = absolute;
        this.names = List.copyOf(names);
    }

    static CxPath parse(CxFileSystem fs, String first, String... more) {
        StringBuilder b = new StringBuilder(first);
        for (String m : more) {
            b.append('/').append(m);
        }
        String text = b.toString();
        if (text.indexOf('\0') >= 0) {
            throw new java.nio.file.InvalidPathException(text, "a NUL byte in a path");
        }
        List<String> names = new ArrayList<>();
        for (String n : text.split("/")) {
            if (!n.isEmpty()) {
                names.add(n);
            }
        }
        return new CxPath(fs, text.startsWith("/"), names);
    }

    /** The path the name service takes: absolute and normalized. */
    String namespacePath() {
        return "/" + String.join("/", ((CxPath) toAbsolutePath().normalize()).names);
    }

    @Override
    public CxFileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return absolute;
    }

    @Override
    public Path getRoot() {
        return absolute ? new CxPath(fs, true, List.of()) : null;
    }

    @Override
    public Path getFileName() {
        return names.isEmpty() ? null : new CxPath(fs, false, List.of(names.get(names.size() - 1)));
    }

    @Override
    public Path getParent() {
        if (names.isEmpty() || names.size() == 1 && !absolute) {
            return null;
        }
        return new CxPath(fs, absolute, names.subList(0, names.size() - 1));
    }

    @Override
    public int getNameCount() {
        return names.size();
    }

    @Override
    public Path getName(int index) {
        return new CxPath(fs, false, List.of(names.get(index)));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return new CxPath(fs, false, names.subList(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        CxPath o = check(other);
        return o.absolute == absolute && o.names.size() <= names.size()
                && names.subList(0, o.names.size()).equals(o.names);
    }

    @Override
    public boolean endsWith(Path other) {
        CxPath o = check(other);
        if (o.absolute) {
            return equals(o);
        }
        return o.names.size() <= names.size() && names.subList(names.size() - o.names.size(), names.size())
                .equals(o.names);
    }

    @Override
    public Path normalize() {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (n.equals(".")) {
                continue;
            }
            if (n.equals("..") && !out.isEmpty() && !out.get(out.size() - 1).equals("..")) {
                out.remove(out.size() - 1);
            } else if (!(n.equals("..") && absolute)) {
                out.add(n);
            }
        }
        return new CxPath(fs, absolute, out);
    }

    @Override
    public Path resolve(Path other) {
        CxPath o = check(other);
        if (o.absolute) {
            return o;
        }
        List<String> all = new ArrayList<>(names);
        all.addAll(o.names);
        return new CxPath(fs, absolute, all);
    }

    @Override
    public Path relativize(Path other) {
        CxPath o = check(other);
        if (o.absolute != absolute) {
            throw new IllegalArgumentException("one of " + this + " and " + other + " is absolute");
        }
        int common = 0;
        while (common < names.size() && common < o.names.size() && names.get(common).equals(o.names.get(common))) {
            common++;
        }
        List<String> out = new ArrayList<>();
        for (int i = common; i < names.size(); i++) {
            out.add("..");
        }
        out.addAll(o.names.subList(common, o.names.size()));
        return new CxPath(fs, false, out);
    }

    @Override
    public URI toUri() {
        return URI.create("cx://" + fs.names() + namespacePath());
    }

    @Override
    public Path toAbsolutePath() {
        return absolute ? this : new CxPath(fs, true, names);
    }

    @Override
    public Path toRealPath(LinkOption... options) throws java.io.IOException {
        Path p = toAbsolutePath().normalize();
        fs.provider().checkAccess(p);
        return p;
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
        throw new UnsupportedOperationException("the federation does not watch for changes");
    }

    @Override
    public int compareTo(Path other) {
        return toString().compareTo(check(other).toString());
    }

    private CxPath check(Path other) {
        if (!(other instanceof CxPath p) || p.fs != fs) {
            throw new ProviderMismatchException(other + " is not a path of " + fs);
        }
        return p;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CxPath p && p.fs == fs && p.absolute == absolute && p.names.equals(names);
    }

    @Override
    public int hashCode() {
        return Objects.hash(absolute, names);
    }

    @Override
    public String toString() {
        return (absolute ? "/" : "") + String.join("/", names);
    }

    static List<String> split(String s) {
        return Arrays.stream(s.split("/")).filter(n -> !n.isEmpty()).toList();
    }
}
