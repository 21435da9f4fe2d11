package org.cx.fs.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.cx.fs.Blocks;
import org.cx.fs.FsClient;

/**
 * Reads a federated file as it was when opened, at any position. Blocks come from the file servers in windows: one
 * block for a random read, doubling up to {@link #MAX_WINDOW} while reads go on in order, and then the next window
 * is fetched in the background as soon as this one is in hand (read-ahead). Memory: at most two windows of blocks,
 * and one more of buffers to fill again.
 */
final class CxReadChannel implements SeekableByteChannel {
    static final int MAX_WINDOW = 8;
    /**
     * Threads of read-ahead and write-behind transfers: one each while it runs, never the common pool, whose one
     * thread on a 2-core machine would let a second open file's transfer wait for the first's to end.
     */
    static final java.util.concurrent.ExecutorService TRANSFERS = java.util.concurrent.Executors.newCachedThreadPool(
            r -> {
                Thread t = new Thread(r, "cx-fs-transfer");
                t.setDaemon(true);
                return t;
            });

    private final FsClient client;
    private final FsClient.Opened file;
    private final int blocks;
    private final Map<Integer, byte[]> cache = new HashMap<>();
    /** Block buffers to fill again: allocating 1 MiB arrays per block costs more than copying them. */
    private final java.util.Queue<byte[]> free = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private CompletableFuture<Map<Integer, byte[]>> ahead;
    private int aheadFirst;
    private int aheadCount;
    private int lastBlock = -2;
    private int window = 1;
    private long position;
    private boolean open = true;

    CxReadChannel(FsClient client, FsClient.Opened file) {
        this.client = client;
        this.file = file;
        this.blocks = file.entry().layout().blocks();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (position >= file.entry().size()) {
            return -1;
        }
        int b = (int) (position / Blocks.SIZE);
        byte[] data = block(b);
        int offset = (int) (position % Blocks.SIZE);
        int n = Math.min(dst.remaining(), data.length - offset);
        dst.put(data, offset, n);
        position += n;
        return n;
    }

    /**
     * Writes the rest of the file, from the position on, to {@code out} straight from its blocks; returns how much.
     * From the start, that is a whole read as {@code cx fs cp} makes it: no windows, striped columns in parallel.
     */
    long transferTo(java.io.OutputStream out) throws IOException {
        ensureOpen();
        if (position == 0 && ahead == null) {
            client.read(file, out, FsClient.Progress.NONE);
            position = file.entry().size();
            return position;
        }
        long moved = 0;
        while (position < file.entry().size()) {
            byte[] data = block((int) (position / Blocks.SIZE));
            int offset = (int) (position % Blocks.SIZE);
            int n = (int) Math.min(data.length - offset, file.entry().size() - position);
            out.write(data, offset, n);
            position += n;
            moved += n;
        }
        return moved;
    }

    private byte[] block(int b) throws IOException {
        if (b == lastBlock + 1) {
            window = Math.min(window * 2, MAX_WINDOW);
        } else if (b != lastBlock) {
            window = 1;
        }
        lastBlock = b;
        byte[] data = cache.get(b);
        if (data == null && ahead != null && b >= aheadFirst && b < aheadFirst + aheadCount) {
            cache.putAll(join(ahead));
            ahead = null;
            data = cache.get(b);
        }
        if (data == null) {
            cache.values().forEach(this::recycle);
            cache.clear();
            cache.putAll(fetch(b, window));
            data = cache.get(b);
        }
        cache.entrySet().removeIf(entry -> {
            if (entry.getKey() < b) {
                recycle(entry.getValue());
                return true;
            }
            return false;
        });
        int next = b + 1;
        while (cache.containsKey(next)) {
            next++;
        }
        if (window > 1 && ahead == null && next < blocks) {
            aheadFirst = next;
            aheadCount = window;
            int first = next;
            int count = window;
            ahead = CompletableFuture.supplyAsync(() -> {
                try {
                    return fetch(first, count);
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            }, TRANSFERS);
        }
        return data;
    }

    private Map<Integer, byte[]> fetch(int first, int count) throws IOException {
        Map<Integer, byte[]> out = new HashMap<>();
        client.readBlocks(file, first, count, this::buffer,
                (i, data, n) -> out.put(i, n == data.length ? data : java.util.Arrays.copyOf(data, n)));
        return out;
    }

    /** A block's buffer: one the reader has passed, or a new one. */
    private byte[] buffer() {
        byte[] b = free.poll();
        return b != null ? b : new byte[Blocks.SIZE];
    }

    /** Keeps {@code data}, a block the reader has passed, for a later fetch (at most a window's worth). */
    private void recycle(byte[] data) {
        if (data.length == Blocks.SIZE && free.size() < MAX_WINDOW) {
            free.add(data);
        }
    }

    /** What {@code f} gives, or the {@link IOException} it failed with. */
    static <T> T join(CompletableFuture<T> f) throws IOException {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public long position() throws IOException {
        ensureOpen();
        return position;
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException("a position is not negative: " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        return file.entry().size();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new NonWritableChannelException();
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        cache.clear();
    }
}
