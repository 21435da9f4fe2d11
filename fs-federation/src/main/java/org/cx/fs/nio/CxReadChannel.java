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
 * Reads a federated file as it was when opened, at any position. A random read fetches its block alone; a read of
 * the block after the last one read starts a read-ahead: one request for the rest of the file, streamed in the
 * background up to {@link #AHEAD} blocks ahead of the reader. Up to {@link #KEPT} blocks before the current one are
 * kept too, for a reader whose requests arrive a little out of order (a FUSE mount's threads, each with one of the
 * kernel's read-ahead requests): a block the read-ahead passed over to reach a later one is kept for its request,
 * which comes soon after. Memory: at most {@code AHEAD + KEPT + 2} blocks, and as many buffers to fill again.
 */
final class CxReadChannel implements SeekableByteChannel {
    static final int AHEAD = 8;
    /** Blocks kept below the one read last. */
    static final int KEPT = 4;
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
    private ReadAhead ahead;
    private int lastBlock = -2;
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
     * From the start, that is a whole read as {@code cx fs cp} makes it: no read-ahead, striped columns in parallel.
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
        byte[] data = cache.get(b);
        if (data == null) {
            if (ahead != null && ahead.reaches(b)) {
                data = ahead.take(b);
            } else {
                stopReadingAhead();
                if (b == lastBlock + 1) {
                    ahead = new ReadAhead(b);
                    data = ahead.take(b);
                } else {
                    data = fetch(b);
                }
            }
            cache.put(b, data);
            cache.entrySet().removeIf(entry -> {
                if (entry.getKey() < b - KEPT || entry.getKey() > b) {
                    recycle(entry.getValue());
                    return true;
                }
                return false;
            });
        }
        lastBlock = b;
        return data;
    }

    private byte[] fetch(int b) throws IOException {
        byte[][] out = new byte[1][];
        client.readBlocks(file, b, 1, this::buffer, (i, data, n) -> out[0] = trimmed(data, n));
        return out[0];
    }

    private static byte[] trimmed(byte[] data, int n) {
        return n == data.length ? data : java.util.Arrays.copyOf(data, n);
    }

    private void stopReadingAhead() {
        if (ahead != null) {
            ahead.stop();
            ahead = null;
        }
    }

    /** A block's buffer: one the reader has passed, or a new one. */
    private byte[] buffer() {
        byte[] b = free.poll();
        return b != null ? b : new byte[Blocks.SIZE];
    }

    /** Keeps {@code data}, a block the reader has passed, for a later fetch (at most a read-ahead's worth). */
    private void recycle(byte[] data) {
        if (data.length == Blocks.SIZE && free.size() < AHEAD) {
            free.add(data);
        }
    }

    /**
     * The blocks from one on to the end of the file, fetched in order by one request on a transfer thread, which
     * waits while {@link #AHEAD} of them wait for the reader: the file server's stream and the reader's progress
     * overlap, and the connection's flow control holds the server back.
     */
    private final class ReadAhead {
        /** Blocks in order, then the failure that ended the fetch, if one did. */
        private final java.util.concurrent.BlockingQueue<Object> arrived =
                new java.util.concurrent.LinkedBlockingQueue<>();
        /** Room for blocks not taken yet. */
        private final java.util.concurrent.Semaphore room = new java.util.concurrent.Semaphore(AHEAD);
        private volatile boolean stopped;
        /** The block the next one taken is. */
        private int next;

        ReadAhead(int first) {
            next = first;
            TRANSFERS.execute(() -> {
                try {
                    client.readBlocks(file, first, blocks - first, CxReadChannel.this::buffer,
                            (i, data, n) -> hand(trimmed(data, n)));
                } catch (IOException | RuntimeException e) {
                    if (!stopped) {
                        arrived.add(e instanceof IOException io ? io : new IOException("read-ahead failed", e));
                    }
                }
            });
        }

        private void hand(byte[] data) throws IOException {
            try {
                while (!room.tryAcquire(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    if (stopped) {
                        throw new IOException("the reader has moved elsewhere");
                    }
                }
                arrived.add(data);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("read-ahead interrupted");
            }
        }

        /** Whether block {@code b} is one this read-ahead gives soon. */
        boolean reaches(int b) {
            return b >= next && b < next + AHEAD;
        }

        /** Block {@code b}, once it is here; the blocks before it are passed over. */
        byte[] take(int b) throws IOException {
            while (true) {
                Object o;
                try {
                    o = arrived.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("read of block " + b + " interrupted");
                }
                if (o instanceof IOException failure) {
                    stopReadingAhead();
                    throw failure;
                }
                byte[] data = (byte[]) o;
                room.release();
                int passed = next++;
                if (passed == b) {
                    return data;
                }
                if (b - passed <= KEPT) {
                    cache.put(passed, data); // its request is likely on its way
                } else {
                    recycle(data);
                }
            }
        }

        void stop() {
            stopped = true;
            for (Object o = arrived.poll(); o != null; o = arrived.poll()) {
                if (o instanceof byte[] data) {
                    recycle(data);
                }
            }
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
        stopReadingAhead();
        cache.clear();
    }
}
