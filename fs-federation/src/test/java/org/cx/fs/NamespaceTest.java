package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.cx.fs.FsException.Code;
import org.junit.jupiter.api.Test;

/** The namespace's rules, one case each: what may be made, replaced, moved and removed, and by whom. */
class NamespaceTest {
    private static final Caller ANN = new Caller("ann", false);
    private static final Caller BOB = new Caller("bob", false);
    private static final Caller ADMIN = new Caller("root", true);

    private final Namespace ns = new Namespace("cx", 1);

    private static FsPath p(String text) throws FsException {
        return FsPath.of(text);
    }

    private void mkdir(String path, Caller who, int mode) throws FsException {
        for (FsPath d : ns.checkMkdir(p(path), true, who)) {
            ns.applyMkdir(d, who.name(), mode, 2);
        }
    }

    private void put(String path, Caller who, int mode) throws FsException {
        ns.checkCreate(p(path), who);
        ns.applyPut(p(path), new Entry(false, 3, 3, who.name(), mode, Blocks.SIZE,
                List.of(new Entry.Column("b" + path.hashCode(), List.of("fs-1"))), List.of(7)), 3);
    }

    private static Code code(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(FsException.class, e).code();
    }

    @Test
    void pathsAreNormalizedAndNeverLeaveTheRoot() throws FsException {
        assertEquals("/a/c", p("cx:/a/./b/../c/").toString());
        assertEquals("/", p("/../../..").toString());
        assertEquals("/x", p("x").toString());
        assertEquals(Code.EINVAL, code(() -> p("/a\0b")));
    }

    @Test
    void mkdirMakesParentsOnlyWhenAskedAndRefusesWhatExists() throws FsException {
        assertEquals(Code.ENOENT, code(() -> ns.checkMkdir(p("/a/b"), false, ANN)));
        assertEquals(List.of(p("/a"), p("/a/b")), ns.checkMkdir(p("/a/b"), true, ANN));
        mkdir("/a/b", ANN, 0755);
        assertEquals(Code.EEXIST, code(() -> ns.checkMkdir(p("/a/b"), false, ANN)));
        assertEquals(List.of(), ns.checkMkdir(p("/a/b"), true, ANN));
        put("/a/f", ANN, 0644);
        assertEquals(Code.ENOTDIR, code(() -> ns.checkMkdir(p("/a/f/g"), true, ANN)));
    }

    @Test
    void othersReadWhatTheModeLetsThemAndWriteNothingOfAnothersDirectory() throws FsException {
        mkdir("/ann", ANN, 0755);
        put("/ann/open", ANN, 0644);
        put("/ann/secret", ANN, 0600);
        assertEquals("ann", ns.readable(p("/ann/open"), BOB).owner());
        assertEquals(Code.EACCES, code(() -> ns.readable(p("/ann/secret"), BOB)));
        assertEquals("ann", ns.readable(p("/ann/secret"), ADMIN).owner());
        assertEquals(Code.EACCES, code(() -> ns.checkCreate(p("/ann/mine"), BOB)));
        assertEquals(Code.EACCES, code(() -> ns.checkRemove(p("/ann/open"), false, BOB)));
        assertEquals(Code.EACCES, code(() -> ns.checkRename(p("/ann/open"), p("/stolen"), BOB)));
        ns.checkRemove(p("/ann/open"), false, ANN);
    }

    @Test
    void theStickyRootLetsOnlyOwnersRemove() throws FsException {
        put("/a", ANN, 0666);
        assertEquals(Code.EACCES, code(() -> ns.checkRemove(p("/a"), false, BOB)));
        ns.checkCreate(p("/a"), BOB); // the file's own mode lets bob replace its content
        ns.checkRemove(p("/a"), false, ANN);
    }

    @Test
    void removingADirectoryNeedsRecursionAndReturnsEveryFileBelow() throws FsException {
        mkdir("/d/e", ANN, 0755);
        put("/d/1", ANN, 0644);
        put("/d/e/2", ANN, 0644);
        assertEquals(Code.ENOTEMPTY, code(() -> ns.checkRemove(p("/d"), false, ANN)));
        ns.checkRemove(p("/d"), true, ANN);
        assertEquals(2, ns.applyRemove(p("/d"), 9).size());
        assertEquals(Code.ENOENT, code(() -> ns.stat(p("/d/1"), ANN)));
    }

    @Test
    void renameReplacesLikeForLikeAndNeverIntoItself() throws FsException {
        mkdir("/d/e", ANN, 0755);
        put("/f", ANN, 0644);
        put("/g", ANN, 0644);
        assertEquals(Code.EINVAL, code(() -> ns.checkRename(p("/d"), p("/d/e/x"), ANN)));
        assertEquals(Code.EISDIR, code(() -> ns.checkRename(p("/f"), p("/d"), ANN)));
        ns.checkRename(p("/f"), p("/g"), ANN);
        Entry replaced = ns.applyRename(p("/f"), p("/g"), 5);
        assertEquals("b" + "/g".hashCode(), replaced.columns().get(0).blob());
        assertEquals(Code.ENOENT, code(() -> ns.stat(p("/f"), ANN)));
        assertNull(ns.applyRename(p("/g"), p("/d/e/g"), 6));
        assertEquals("b" + "/f".hashCode(), ns.stat(p("/d/e/g"), ANN).columns().get(0).blob());
    }
}
