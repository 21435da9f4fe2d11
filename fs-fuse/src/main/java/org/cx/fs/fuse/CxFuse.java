package org.cx.fs.fuse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.cryptomator.jfuse.api.DirFiller;
import org.cryptomator.jfuse.api.Errno;
import org.cryptomator.jfuse.api.FileInfo;
import org.cryptomator.jfuse.api.FuseConfig;
import org.cryptomator.jfuse.api.FuseConnInfo;
import org.cryptomator.jfuse.api.FuseOperations;
import org.cryptomator.jfuse.api.Stat;
import org.cryptomator.jfuse.api.Statvfs;
import org.cryptomator.jfuse.api.TimeSpec;
import org.cx.fs.Blocks;
import org.cx.fs.Entry;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.Namespace;
import org.cx.fs.nio.CxFileSystemProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation as FUSE sees it. Reads go straight to the file servers with read-ahead, and a file opened again
 * unchanged is read from the kernel's page cache ({@link PageCacheVersions}); a file opened for writing
 * goes to the federation as it is written in order, with a local scratch file for what comes out of order (so
 * programs may seek and rewrite), and appears, whole, when it is closed ({@link ScratchWriter}; close-to-open: other
 * readers see the new content from then on; an error on the way is the error of {@code close}). Entries appear
 * owned by the mounting user; the name service checks every change against the mounting identity. Times and modes
 * cannot be set (the calls succeed and change nothing).
 */
final class CxFuse implements FuseOperations {
    private static final Logger LOG = LoggerFactory.getLogger(CxFuse.class);

    private final FsClient client;
    private final Errno errno;
    /** Where files being written are kept until closed. */
    private final java.nio.file.Path scratch;
    private final AtomicLong nextHandle = new AtomicLong(1);
    private final Map<Long, Object> handles = new ConcurrentHashMap<>();
    /** Files open for writing, by path: what getattr reports for them until they are closed. */
    private final Map<String, ScratchWriter> writing = new ConcurrentHashMap<>();
    private final PageCacheVersions cached = new PageCacheVersions();
    private final int uid;
    private final int gid;

    CxFuse(FsClient client, Errno errno, java.nio.file.Path scratch) {
        this.client = client;
        this.errno = errno;
        this.scratch = scratch;
        int[] ids = ids();
        this.uid = ids[0];
        this.gid = ids[1];
    }

    /** This process's uid and gid, from /proc (files appear as the mounting user's). */
    private static int[] ids() {
        try {
            int uid = 0;
            int gid = 0;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    uid = Integer.parseInt(line.split("\\s+")[1]);
                } else if (line.startsWith("Gid:")) {
                    gid = Integer.parseInt(line.split("\\s+")[1]);
                }
            }
            return new int[] {uid, gid};
        } catch (IOException | RuntimeException e) {
            return new int[] {0, 0};
        }
    }

    @Override
    public Errno errno() {
        return errno;
    }

    /**
     * Asks the kernel for requests of a block (1 MiB) rather than its default 128 KiB, and to gather writes in its
     * page cache (writeback cache) so that a program writing a few KiB at a time to a file it also reads still sends
     * whole runs of pages. Read-ahead is bounded by the mount's backing device setting, which {@link FuseMounter}
     * raises to a block where it may. With the writeback cache the kernel writes pages back in any order (out of
     * order falls back to sending the scratch file whole) and writes every dirty page back before a close reaches
     * {@link #flush}. Files opened only for writing bypass the page cache ({@link #writeOnly}).
     */
    @Override
    public void init(FuseConnInfo conn, FuseConfig config) {
        conn.setMaxWrite(Blocks.SIZE);
        conn.setMaxReadahead(Blocks.SIZE);
        conn.setWant(conn.want() | (conn.capable() & FuseConnInfo.FUSE_CAP_WRITEBACK_CACHE));
    }

    @Override
    public Set<Operation> supportedOperations() {
        return EnumSet.of(Operation.GET_ATTR, Operation.OPEN, Operation.READ, Operation.WRITE, Operation.CREATE,
                Operation.RELEASE, Operation.FLUSH, Operation.FSYNC, Operation.TRUNCATE, Operation.OPEN_DIR,
                Operation.READ_DIR, Operation.RELEASE_DIR, Operation.MKDIR, Operation.RMDIR, Operation.UNLINK,
                Operation.RENAME, Operation.STATFS, Operation.UTIMENS, Operation.CHMOD, Operation.CHOWN,
                Operation.ACCESS, Operation.INIT, Operation.DESTROY);
    }

    /** The negative errno that says what {@code e} says. */
    private int error(IOException e, String what, String path) {
        if (!(e instanceof FsException f)) {
            LOG.warn("{} {}: {}", what, path, e.getMessage());
            return -errno.eio();
        }
        return switch (f.code()) {
            case ENOENT -> -errno.enoent();
            case EEXIST -> -errno.eexist();
            case ENOTDIR -> -errno.enotdir();
            case EISDIR -> -errno.eisdir();
            case ENOTEMPTY -> -errno.enotempty();
            case EACCES -> -errno.eacces();
            case EINVAL -> -errno.einval();
            case ENOSPC, EIO -> {
                LOG.warn("{} {}: {}", what, path, f.getMessage());
                yield -errno.eio();
            }
        };
    }

    @Override
    public int getattr(String path, Stat stat, FileInfo fi) {
        try {
            ScratchWriter w = writing.get(path);
            Entry e = client.stat(path);
            stat.setMode((e.directory() ? Stat.S_IFDIR : Stat.S_IFREG) | (e.mode() & 07777));
            stat.setNLink((short) (e.directory() ? 2 : 1));
            stat.setSize(w != null ? w.size() : e.size());
            NativeFields.blockSize(stat, Blocks.SIZE);
            stat.setUid(uid);
            stat.setGid(gid);
            stat.mTime().set(Instant.ofEpochMilli(e.mtime()));
            stat.cTime().set(Instant.ofEpochMilli(e.mtime()));
            stat.aTime().set(Instant.ofEpochMilli(e.mtime()));
            return 0;
        } catch (FsException e) {
            ScratchWriter w = writing.get(path);
            if (w != null && e.code() == FsException.Code.ENOENT) { // created, not closed yet
                try {
                    stat.setMode(Stat.S_IFREG | 0644);
                    stat.setNLink((short) 1);
                    stat.setSize(w.size());
                    stat.setUid(uid);
                    stat.setGid(gid);
                    return 0;
                } catch (IOException x) {
                    return error(x, "getattr", path);
                }
            }
            return error(e, "getattr", path);
        } catch (IOException e) {
            return error(e, "getattr", path);
        }
    }

    @Override
    public int readdir(String path, DirFiller filler, long offset, FileInfo fi, int flags) {
        try {
            filler.fill(".");
            filler.fill("..");
            for (Namespace.Named n : client.list(path)) {
                filler.fill(n.name());
            }
            return 0;
        } catch (IOException e) {
            return error(e, "readdir", path);
        }
    }

    @Override
    public int opendir(String path, FileInfo fi) {
        return 0;
    }

    @Override
    public int releasedir(String path, FileInfo fi) {
        return 0;
    }

    private long handle(Object h) {
        long fh = nextHandle.getAndIncrement();
        handles.put(fh, h);
        return fh;
    }

    @Override
    public int open(String path, FileInfo fi) {
        Set<StandardOpenOption> flags = fi.getOpenFlags();
        try {
            if (flags.contains(StandardOpenOption.WRITE)) {
                cached.forget(path);
                ScratchWriter w = new ScratchWriter(client, scratch, path,
                        !flags.contains(StandardOpenOption.TRUNCATE_EXISTING), !writeOnly(fi));
                writing.put(path, w);
                fi.setFh(handle(w));
            } else {
                FsClient.Opened file = client.open(path);
                fi.setFh(handle(CxFileSystemProvider.reader(client, file)));
                if (writing.containsKey(path)) {
                    cached.forget(path); // its pages may hold what is being written
                } else if (cached.opened(path, file.entry())) {
                    NativeFields.keepCache(fi);
                }
            }
            return 0;
        } catch (IOException e) {
            return error(e, "open", path);
        }
    }

    /**
     * Whether a file opened only for writing goes by direct I/O: each write reaches {@link #write} as the program made
     * it (sized by the 1 MiB block size {@code getattr} reports), without the page cache's copy and the kernel's
     * write-back, and what is sent in order is not kept in the scratch file. Nothing can map such a file (a shared
     * mapping needs it readable), so nothing is lost by it.
     */
    private static boolean writeOnly(FileInfo fi) {
        return !fi.getOpenFlags().contains(StandardOpenOption.READ) && NativeFields.directIo(fi);
    }

    @Override
    public int create(String path, int mode, FileInfo fi) {
        cached.forget(path);
        try {
            ScratchWriter w = new ScratchWriter(client, scratch, path, false, !writeOnly(fi));
            writing.put(path, w);
            fi.setFh(handle(w));
            return 0;
        } catch (IOException e) {
            return error(e, "create", path);
        }
    }

    @Override
    public int read(String path, ByteBuffer buf, long count, long offset, FileInfo fi) {
        Object h = handles.get(fi.getFh());
        try {
            if (h instanceof SeekableByteChannel reader) {
                synchronized (reader) {
                    reader.position(offset);
                    ByteBuffer into = buf.slice(buf.position(), (int) Math.min(count, buf.remaining()));
                    int total = 0;
                    while (into.hasRemaining()) {
                        int n = reader.read(into);
                        if (n < 0) {
                            break;
                        }
                        total += n;
                    }
                    buf.position(buf.position() + total);
                    return total;
                }
            }
            if (h instanceof ScratchWriter w) {
                synchronized (w) {
                    int n = w.channel.read(buf.slice(buf.position(), (int) Math.min(count, buf.remaining())), offset);
                    n = Math.max(n, 0);
                    buf.position(buf.position() + n);
                    return n;
                }
            }
            return -errno.ebadf();
        } catch (IOException e) {
            return error(e, "read", path);
        }
    }

    @Override
    public int write(String path, ByteBuffer buf, long count, long offset, FileInfo fi) {
        if (!(handles.get(fi.getFh()) instanceof ScratchWriter w)) {
            return -errno.ebadf();
        }
        try {
            return w.write(buf.slice(buf.position(), (int) Math.min(count, buf.remaining())), offset);
        } catch (IOException e) {
            return error(e, "write", path);
        }
    }

    @Override
    public int truncate(String path, long size, FileInfo fi) {
        cached.forget(path);
        try {
            ScratchWriter w = fi != null && handles.get(fi.getFh()) instanceof ScratchWriter open ? open
                    : writing.get(path);
            if (w != null) {
                w.truncate(size);
                return 0;
            }
            ScratchWriter once = new ScratchWriter(client, scratch, path, size > 0, true);
            try {
                once.truncate(size);
                once.send();
            } finally {
                once.close();
            }
            return 0;
        } catch (IOException e) {
            return error(e, "truncate", path);
        }
    }

    @Override
    public int flush(String path, FileInfo fi) {
        if (handles.get(fi.getFh()) instanceof ScratchWriter w) {
            try {
                w.send();
            } catch (IOException e) {
                return error(e, "close", path);
            }
        }
        return 0;
    }

    @Override
    public int fsync(String path, int datasync, FileInfo fi) {
        return flush(path, fi);
    }

    @Override
    public int release(String path, FileInfo fi) {
        Object h = handles.remove(fi.getFh());
        try {
            if (h instanceof ScratchWriter w) {
                try {
                    w.send();
                } finally {
                    writing.remove(w.path, w);
                    w.close();
                }
            } else if (h instanceof SeekableByteChannel reader) {
                reader.close();
            }
            return 0;
        } catch (IOException e) {
            return error(e, "close", path);
        }
    }

    @Override
    public int mkdir(String path, int mode) {
        try {
            client.mkdir(path, false);
            return 0;
        } catch (IOException e) {
            return error(e, "mkdir", path);
        }
    }

    @Override
    public int rmdir(String path) {
        cached.forget(path);
        try {
            if (!client.stat(path).directory()) {
                return -errno.enotdir();
            }
            client.remove(path, false);
            return 0;
        } catch (IOException e) {
            return error(e, "rmdir", path);
        }
    }

    @Override
    public int unlink(String path) {
        cached.forget(path);
        try {
            if (client.stat(path).directory()) {
                return -errno.eisdir();
            }
            client.remove(path, false);
            return 0;
        } catch (IOException e) {
            return error(e, "unlink", path);
        }
    }

    @Override
    public int rename(String oldpath, String newpath, int flags) {
        cached.forgetAll();
        try {
            client.rename(oldpath, newpath);
            return 0;
        } catch (IOException e) {
            return error(e, "rename", oldpath);
        }
    }

    @Override
    public int statfs(String path, Statvfs statvfs) {
        try {
            long total = 0;
            long free = 0;
            for (FsClient.ServerInfo s : client.servers()) {
                if (s.alive()) {
                    total += s.capacity();
                    free += s.free();
                }
            }
            long block = 4096;
            statvfs.setBsize(block);
            statvfs.setFrsize(block);
            statvfs.setBlocks(total / block);
            statvfs.setBfree(free / block);
            statvfs.setBavail(free / block);
            statvfs.setNameMax(255);
            return 0;
        } catch (IOException e) {
            return error(e, "statfs", path);
        }
    }

    @Override
    public int utimens(String path, TimeSpec atime, TimeSpec mtime, FileInfo fi) {
        return 0;
    }

    @Override
    public int chmod(String path, int mode, FileInfo fi) {
        return 0;
    }

    @Override
    public int chown(String path, int uid, int gid, FileInfo fi) {
        return 0;
    }

    @Override
    public int access(String path, int mask) {
        return 0;
    }
}
