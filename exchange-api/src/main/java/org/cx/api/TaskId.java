package org.cx.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A task's identity: its computation and its path in the spawn tree (paper §4.1). The root task has the empty path;
 * the i-th task stored by a task has its parent's path followed by i. Two executions of the same parent therefore
 * store children with equal ids, which is how duplicates are recognised.
 *
 * <p>The path is kept as unsigned LEB128 varints, so a Fibonacci task 25 levels deep costs about 25 bytes.
 */
public final class TaskId {
    private static final VarHandle EIGHT_BYTES = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** The continuation bits of eight varint bytes read as one long. */
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;

    private final long computation;
    private final byte[] path;
    private final int level;
    private final int hash;

    private TaskId(long computation, byte[] path, int level) {
        this.computation = computation;
        this.path = path;
        this.level = level;
        this.hash = Long.hashCode(computation) * 31 + Arrays.hashCode(path);
    }

    /** The root task of a computation. */
    public static TaskId root(long computation) {
        return new TaskId(computation, new byte[0], 0);
    }

    /**
     * Rebuilds an id from its encoded path, as read from the wire.
     *
     * @throws IllegalArgumentException if the bytes are not a sequence of complete varints
     */
    public static TaskId fromPath(long computation, byte[] path) {
        return new TaskId(computation, path.clone(), countLevels(path));
    }

    /** The id of this task's {@code index}-th child. */
    public TaskId child(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("child index must be >= 0: " + index);
        }
        byte[] suffix = new byte[5];
        int n = 0;
        int v = index;
        while ((v & ~0x7F) != 0) {
            suffix[n++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        suffix[n++] = (byte) v;
        byte[] childPath = Arrays.copyOf(path, path.length + n);
        System.arraycopy(suffix, 0, childPath, path.length, n);
        return new TaskId(computation, childPath, level + 1);
    }

    public long computation() {
        return computation;
    }

    /** Depth in the spawn tree: 0 for the root. The default priority orders tasks by it, earliest first. */
    public int level() {
        return level;
    }

    /** Whether this task was stored directly by {@code parent} (same computation, one level deeper, its prefix). */
    public boolean isChildOf(TaskId parent) {
        return computation == parent.computation
                && level == parent.level + 1
                && Arrays.equals(path, 0, parent.path.length, parent.path, 0, parent.path.length);
    }

    /** The encoded path; a copy, since ids are immutable. */
    public byte[] pathBytes() {
        return path.clone();
    }

    /** Encoded path length in bytes, for sizing buffers without copying. */
    public int pathLength() {
        return path.length;
    }

    /** Copies the encoded path into {@code dst} at {@code offset}. */
    public void copyPath(byte[] dst, int offset) {
        System.arraycopy(path, 0, dst, offset, path.length);
    }

    /** The child indices from the root down, e.g. {@code [0, 2, 1]}. */
    public int[] indices() {
        int[] out = new int[level];
        int i = 0;
        int v = 0;
        int shift = 0;
        for (byte b : path) {
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                out[i++] = v;
                v = 0;
                shift = 0;
            } else {
                shift += 7;
            }
        }
        return out;
    }

    private static int countLevels(byte[] path) {
        int start = 0; // indices under 128, as most are, take a byte each: eight at a time up to the first that is not
        while (start + Long.BYTES <= path.length && ((long) EIGHT_BYTES.get(path, start) & HIGH_BITS) == 0) {
            start += Long.BYTES;
        }
        int levels = start;
        int run = 0;
        for (int i = start; i < path.length; i++) {
            byte b = path[i];
            if ((b & 0x80) == 0) {
                levels++;
                run = 0;
            } else if (++run >= 5) {
                throw new IllegalArgumentException("task path has a varint longer than 5 bytes");
            }
        }
        if (path.length > 0 && (path[path.length - 1] & 0x80) != 0) {
            throw new IllegalArgumentException("task path ends inside a varint");
        }
        return levels;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskId other
                && other.hash == hash
                && other.computation == computation
                && Arrays.equals(other.path, path);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Reads as {@code computation:/i/j/k}, the root as {@code computation:/}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder().append(Long.toHexString(computation)).append(':');
        int[] indices = indices();
        if (indices.length == 0) {
            sb.append('/');
        }
        for (int index : indices) {
            sb.append('/').append(index);
        }
        return sb.toString();
    }
}
