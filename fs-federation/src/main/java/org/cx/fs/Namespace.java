package org.cx.fs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cx.fs.FsException.Code;

/**
 * The namespace of the federation: a tree of directories and files, with owner and mode on each. Pure and
 * single-threaded: time is passed in, nothing is read or written here. Each change is two steps, so the name service
 * can write it to its journal in between: a {@code check…} method says whether {@code caller} may make it (and throws
 * why not), and an {@code apply…} method makes it (also on replay of the journal, where nothing is checked).
 *
 * <p>Access: reading an entry needs its read bit, changing a directory's content its write bit, for the owner or
 * for others (there are no groups); a directory with the sticky bit (the root has it) lets only an entry's owner
 * remove or rename it. Directories are always searchable.
 */
public final class Namespace {
    /** The root's mode: everyone may create in it, only owners remove (like {@code /tmp}). */
    static final int ROOT_MODE = 01777;

    private final Node root;

    public Namespace(String rootOwner, long now) {
        root = new Node(Entry.directory(rootOwner, ROOT_MODE, now));
    }

    /** A directory or file and, for a directory, its children by name. */
    private static final class Node {
        Entry entry;
        final TreeMap<String, Node> children;

        Node(Entry entry) {
            this.entry = entry;
            this.children = entry.directory() ? new TreeMap<>() : null;
        }
    }

    /** One entry of a directory listing. */
    public record Named(String name, Entry entry) {
    }

    // ---------------------------------------------------------------- reading

    public Entry stat(FsPath path, Caller caller) throws FsException {
        return node(path).entry;
    }

    /** The entries of directory {@code path}, by name; a file lists as itself. */
    public List<Named> list(FsPath path, Caller caller) throws FsException {
        Node n = node(path);
        if (!n.entry.directory()) {
            return List.of(new Named(path.name(), n.entry));
        }
        require(n.entry, caller, 4, "list", path);
        List<Named> out = new ArrayList<>(n.children.size());
        for (Map.Entry<String, Node> c : n.children.entrySet()) {
            out.add(new Named(c.getKey(), c.getValue().entry));
        }
        return out;
    }

    /** The file at {@code path}, which {@code caller} may read. */
    public Entry readable(FsPath path, Caller caller) throws FsException {
        Node n = node(path);
        if (n.entry.directory()) {
            throw new FsException(Code.EISDIR, path + " is a directory");
        }
        require(n.entry, caller, 4, "read", path);
        return n.entry;
    }

    /** Every file under {@code path} (or it), with its path: what fsck checks. */
    public List<Map.Entry<FsPath, Entry>> files(FsPath path) throws FsException {
        List<Map.Entry<FsPath, Entry>> out = new ArrayList<>();
        collect(path, node(path), out);
        return out;
    }

    private static void collect(FsPath path, Node n, List<Map.Entry<FsPath, Entry>> out) throws FsException {
        if (!n.entry.directory()) {
            out.add(Map.entry(path, n.entry));
            return;
        }
        for (Map.Entry<String, Node> c : n.children.entrySet()) {
            collect(path.child(c.getKey()), c.getValue(), out);
        }
    }

    // ---------------------------------------------------------------- directories

    /** The directories {@code mkdir} (with {@code parents}: {@code -p}) would make, from the top down. */
    public List<FsPath> checkMkdir(FsPath path, boolean parents, Caller caller) throws FsException {
        List<FsPath> missing = new ArrayList<>();
        FsPath p = path;
        while (find(p) == null) {
            missing.add(0, p);
            p = p.parent();
        }
        Node existing = find(p);
        if (missing.isEmpty()) {
            if (parents && existing.entry.directory()) {
                return List.of();
            }
            throw new FsException(Code.EEXIST, path + " exists already");
        }
        if (!existing.entry.directory()) {
            throw new FsException(Code.ENOTDIR, p + " is a file, not a directory");
        }
        if (missing.size() > 1 && !parents) {
            throw new FsException(Code.ENOENT, missing.get(0) + " does not exist (mkdir -p makes it too)");
        }
        require(existing.entry, caller, 2, "create in", p);
        return missing;
    }

    public void applyMkdir(FsPath path, String owner, int mode, long now) throws FsException {
        Node parent = directory(path.parent());
        parent.children.put(path.name(), new Node(Entry.directory(owner, mode, now)));
        parent.entry = parent.entry.touched(now);
    }

    // ---------------------------------------------------------------- files

    /** Whether {@code caller} may create or replace the file at {@code path}. */
    public void checkCreate(FsPath path, Caller caller) throws FsException {
        if (path.isRoot()) {
            throw new FsException(Code.EISDIR, "/ is a directory");
        }
        Node parent = directory(path.parent());
        require(parent.entry, caller, 2, "create in", path.parent());
        Node existing = parent.children.get(path.name());
        if (existing != null) {
            if (existing.entry.directory()) {
                throw new FsException(Code.EISDIR, path + " is a directory");
            }
            require(existing.entry, caller, 2, "replace", path);
        }
    }

    /** Puts {@code file} at {@code path}; returns the entry it replaced (its bytes are to be removed), or null. */
    public Entry applyPut(FsPath path, Entry file, long now) throws FsException {
        Node parent = directory(path.parent());
        Node old = parent.children.put(path.name(), new Node(file));
        parent.entry = parent.entry.touched(now);
        return old == null ? null : old.entry;
    }

    // ---------------------------------------------------------------- removing and renaming

    /** Whether {@code caller} may remove {@code path} (with everything below it when {@code recursive}). */
    public void checkRemove(FsPath path, boolean recursive, Caller caller) throws FsException {
        if (path.isRoot()) {
            throw new FsException(Code.EINVAL, "the root cannot be removed");
        }
        Node n = node(path);
        if (n.entry.directory() && !n.children.isEmpty() && !recursive) {
            throw new FsException(Code.ENOTEMPTY, path + " is a directory that is not empty (rm -r removes it "
                    + "with its content)");
        }
        mayUnlink(path, n, caller);
        if (recursive && n.entry.directory()) {
            for (Map.Entry<String, Node> c : n.children.entrySet()) {
                checkRemove(path.child(c.getKey()), true, caller);
            }
        }
    }

    /** Removes {@code path} and what is below it; returns the files removed (their bytes are to be removed). */
    public List<Entry> applyRemove(FsPath path, long now) throws FsException {
        Node parent = directory(path.parent());
        Node n = parent.children.remove(path.name());
        if (n == null) {
            throw new FsException(Code.ENOENT, path + " does not exist");
        }
        parent.entry = parent.entry.touched(now);
        List<Map.Entry<FsPath, Entry>> files = new ArrayList<>();
        collect(path, n, files);
        return files.stream().map(Map.Entry::getValue).toList();
    }

    /**
     * Whether {@code caller} may rename {@code from} to {@code to}; a file may replace a file, a directory an empty
     * directory, and a directory never moves below itself.
     */
    public void checkRename(FsPath from, FsPath to, Caller caller) throws FsException {
        if (from.isRoot() || to.isRoot()) {
            throw new FsException(Code.EINVAL, "the root cannot be renamed, nor replaced");
        }
        Node n = node(from);
        if (n.entry.directory() && from.contains(to) && !from.equals(to)) {
            throw new FsException(Code.EINVAL, "cannot move " + from + " into itself (" + to + ")");
        }
        mayUnlink(from, n, caller);
        Node target = directory(to.parent());
        require(target.entry, caller, 2, "create in", to.parent());
        Node existing = target.children.get(to.name());
        if (existing != null && existing != n) {
            if (existing.entry.directory() != n.entry.directory()) {
                throw new FsException(existing.entry.directory() ? Code.EISDIR : Code.ENOTDIR, "cannot replace "
                        + to + " (a " + kind(existing) + ") with " + from + " (a " + kind(n) + ")");
            }
            if (existing.entry.directory() && !existing.children.isEmpty()) {
                throw new FsException(Code.ENOTEMPTY, to + " is a directory that is not empty");
            }
            mayUnlink(to, existing, caller);
        }
    }

    /** Renames; returns the file it replaced (its bytes are to be removed), or null. */
    public Entry applyRename(FsPath from, FsPath to, long now) throws FsException {
        Node source = directory(from.parent());
        Node n = source.children.get(from.name());
        if (n == null) {
            throw new FsException(Code.ENOENT, from + " does not exist");
        }
        if (from.equals(to)) {
            return null;
        }
        source.children.remove(from.name());
        source.entry = source.entry.touched(now);
        Node target = directory(to.parent());
        Node old = target.children.put(to.name(), n);
        target.entry = target.entry.touched(now);
        return old == null || old.entry.directory() ? null : old.entry;
    }

    // ---------------------------------------------------------------- helpers

    private void mayUnlink(FsPath path, Node n, Caller caller) throws FsException {
        Node parent = directory(path.parent());
        require(parent.entry, caller, 2, "remove from", path.parent());
        if ((parent.entry.mode() & 01000) != 0 && !caller.admin() && !caller.name().equals(n.entry.owner())
                && !caller.name().equals(parent.entry.owner())) {
            throw new FsException(Code.EACCES, caller.name() + " may not remove or rename " + path + ": it belongs"
                    + " to " + n.entry.owner() + " and " + path.parent() + " lets only owners do that");
        }
    }

    private static String kind(Node n) {
        return n.entry.directory() ? "directory" : "file";
    }

    /** {@code bit} 4 read, 2 write, of the owner's or the others' bits. */
    private static void require(Entry e, Caller caller, int bit, String what, FsPath path) throws FsException {
        if (caller.admin()) {
            return;
        }
        int bits = caller.name().equals(e.owner()) ? (e.mode() >> 6) & 7 : e.mode() & 7;
        if ((bits & bit) == 0) {
            throw new FsException(Code.EACCES, caller.name() + " may not " + what + " " + path + " (owner "
                    + e.owner() + ", mode " + e.modeString() + ")");
        }
    }

    private Node find(FsPath path) {
        Node n = root;
        for (String name : path.names()) {
            if (n.children == null) {
                return null;
            }
            n = n.children.get(name);
            if (n == null) {
                return null;
            }
        }
        return n;
    }

    private Node node(FsPath path) throws FsException {
        Node n = root;
        FsPath here = FsPath.ROOT;
        for (String name : path.names()) {
            if (n.children == null) {
                throw new FsException(Code.ENOTDIR, here + " is a file, not a directory");
            }
            here = here.child(name);
            n = n.children.get(name);
            if (n == null) {
                throw new FsException(Code.ENOENT, here + " does not exist");
            }
        }
        return n;
    }

    private Node directory(FsPath path) throws FsException {
        Node n = node(path);
        if (!n.entry.directory()) {
            throw new FsException(Code.ENOTDIR, path + " is a file, not a directory");
        }
        return n;
    }

    // ---------------------------------------------------------------- snapshots

    /** Every entry, parents before children: what a snapshot holds. */
    public List<Map.Entry<FsPath, Entry>> all() throws FsException {
        List<Map.Entry<FsPath, Entry>> out = new ArrayList<>();
        walk(FsPath.ROOT, root, out);
        return out;
    }

    private static void walk(FsPath path, Node n, List<Map.Entry<FsPath, Entry>> out) throws FsException {
        out.add(Map.entry(path, n.entry));
        if (n.children != null) {
            for (Map.Entry<String, Node> c : n.children.entrySet()) {
                walk(path.child(c.getKey()), c.getValue(), out);
            }
        }
    }

    /** Puts {@code entry} at {@code path} as a snapshot has it (the parent exists; the root replaces the root's). */
    void restore(FsPath path, Entry entry) throws FsException {
        if (path.isRoot()) {
            root.entry = entry;
            return;
        }
        directory(path.parent()).children.put(path.name(), new Node(entry));
    }
}
