package org.cx.fs.fuse;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cryptomator.jfuse.api.FileInfo;
import org.cryptomator.jfuse.api.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fields libfuse has and jfuse's API does not reach: the {@code direct_io} and {@code keep_cache} bits of an open
 * file's {@code struct fuse_file_info}, and the {@code st_blksize} of a {@code struct stat}. jfuse's Linux classes are
 * records over the native structs; this writes the fields into their memory (libfuse 3 on x86-64 and aarch64, where
 * both sit at the same offsets). Both are hints for speed: where the memory cannot be reached (another jfuse, another
 * processor), the mount logs it once and goes on without them.
 */
final class NativeFields {
    private static final Logger LOG = LoggerFactory.getLogger(NativeFields.class);

    /** {@code struct fuse_file_info}: {@code int flags}, then the bit fields: writepage, direct_io, keep_cache. */
    private static final long FILE_INFO_BITS = 4;
    private static final int DIRECT_IO = 1 << 1;
    private static final int KEEP_CACHE = 1 << 2;
    /**
     * {@code struct stat}: {@code st_blksize} at 56, a long on x86-64 and an int followed by padding on aarch64;
     * writing a little-endian long there sets either.
     */
    private static final long ST_BLKSIZE = 56;
    private static final boolean KNOWN_LAYOUT = Set.of("amd64", "x86_64", "aarch64")
            .contains(System.getProperty("os.arch"));

    private static final Map<Class<?>, Method> SEGMENTS = new ConcurrentHashMap<>();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private NativeFields() {
    }

    /**
     * Marks an open file for direct I/O: its reads and writes go to the mount as the program makes them, not through
     * the kernel's page cache (no page cache copy; a program cannot map it shared). Returns whether it could.
     */
    static boolean directIo(FileInfo fi) {
        return setBit(fi, DIRECT_IO);
    }

    /** Lets the kernel keep what its page cache holds of the file from before this open. */
    static void keepCache(FileInfo fi) {
        setBit(fi, KEEP_CACHE);
    }

    private static boolean setBit(FileInfo fi, int bit) {
        MemorySegment s = segment(fi);
        if (s == null) {
            return false;
        }
        s.set(ValueLayout.JAVA_INT, FILE_INFO_BITS, s.get(ValueLayout.JAVA_INT, FILE_INFO_BITS) | bit);
        return true;
    }

    /** Reports {@code size} as the block size programs size their reads and writes by ({@code cp}, Python). */
    static void blockSize(Stat stat, int size) {
        MemorySegment s = segment(stat);
        if (s != null) {
            s.set(ValueLayout.JAVA_LONG, ST_BLKSIZE, size);
        }
    }

    private static MemorySegment segment(Object struct) {
        if (!KNOWN_LAYOUT) {
            warnOnce("this processor's struct layouts are not known here");
            return null;
        }
        try {
            Method m = SEGMENTS.computeIfAbsent(struct.getClass(), NativeFields::accessor);
            return m == null ? null : (MemorySegment) m.invoke(struct);
        } catch (ReflectiveOperationException | RuntimeException e) {
            warnOnce(e.toString());
            return null;
        }
    }

    private static Method accessor(Class<?> c) {
        RecordComponent[] components = c.getRecordComponents();
        if (components != null) {
            for (RecordComponent rc : components) {
                if (rc.getType() == MemorySegment.class) {
                    try {
                        Method m = rc.getAccessor();
                        m.setAccessible(true);
                        return m;
                    } catch (RuntimeException e) {
                        warnOnce(e.toString());
                        return null;
                    }
                }
            }
        }
        warnOnce(c.getName() + " holds no native struct this knows");
        return null;
    }

    private static void warnOnce(String why) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("the FUSE mount runs without direct I/O for writes, a 1 MiB block size and a page cache kept "
                    + "across opens ({}): slower, otherwise the same", why);
        }
    }
}
