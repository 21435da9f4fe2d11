package org.cx.fs.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.cx.fs.Blocks;
import org.cx.fs.FsClient;

/**
 * Writes a federated file from start to end (write-behind): writes are gathered into whole blocks, which a
 * background transfer sends while the caller goes on; at most {@link #QUEUED} blocks wait, after which a write
 * waits too. Blocks sent are filled again, so a long file takes no more memory than a short one. The file appears,
 * whole, when {@link #close} returns, and not at all if anything failed; close says what. Only sequential writes: a
 * federated file is written whole.
 */
public final class CxWriteChannel implements SeekableByteChannel {
    static final int QUEUED = 8;
    private static final byte[] END = new byte[0];
    private static final byte[] ABANDONED = new byte[0];

    private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUED);
    /** Blocks the transfer has sent, to be filled again. */
    private final BlockingQueue<byte[]> sent = new ArrayBlockingQueue<>(QUEUED + 2);
    private final CompletableFuture<Void> transfer;
    private byte[] block = new byte[Blocks.SIZE];
    private int filled;
    private long written;
    private boolean open = true;
    /** Whether the file is left unnamed when the transfer ends ({@link #detach}). */
    private volatile boolean detached;
    /** Where the blocks of a detached file are, once the transfer has stored them. */
    private volatile FsClient.Opened unnamed;

    CxWriteChannel(FsClient client, String path, FsClient.Placement placement) {
        FsClient.BlockSource blocks = new FsClient.BlockSource() {
            private byte[] previous;

            @Override
            public boolean name() {
                return !detached;
            }

            @Override
            public void unnamed(FsClient.Opened file) {
                unnamed = file;
            }

            @Override
            public byte[] next() throws IOException {
                if (previous != null && previous.length == Blocks.SIZE) {
                    sent.offer(previous);
                }
                try {
                    previous = queue.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("the write was abandoned");
                }
                if (previous == ABANDONED) {
                    throw new IOException("the writer abandoned the file");
                }
                return previous;
            }
        };
        transfer = CompletableFuture.runAsync(() -> {
            try {
                client.write(path, blocks, -1, placement, FsClient.Progress.NONE);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, CxReadChannel.TRANSFERS);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        int total = src.remaining();
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), block.length - filled);
            src.get(block, filled, n);
            filled += n;
            if (filled == block.length) {
                hand(block);
                byte[] again = sent.poll();
                block = again != null ? again : new byte[Blocks.SIZE];
                filled = 0;
            }
        }
        written += total;
        return total;
    }

    private void hand(byte[] b) throws IOException {
        try {
            while (!queue.offer(b, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (transfer.isDone()) {
                    failure();
                    throw new IOException("the transfer ended before all was written");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing");
        }
    }

    private void failure() throws IOException {
        CxReadChannel.join(transfer);
    }

    @Override
    public int read(ByteBuffer dst) {
        throw new NonReadableChannelException();
    }

    @Override
    public long position() throws IOException {
        ensureOpen();
        return written;
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
        if (newPosition != written) {
            throw new UnsupportedOperationException("a federated file is written from start to end: no position "
                    + newPosition + " while " + written + " bytes are written");
        }
        return this;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        return written;
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new UnsupportedOperationException("a federated file is written from start to end");
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

    /** Gives the file up: nothing of it appears, and the transfer ends (on a thread of its own). */
    public void abandon() {
        if (!open) {
            return;
        }
        open = false;
        try {
            hand(ABANDONED);
        } catch (IOException e) {
            // the transfer had ended already
        }
    }

    @Override
    public void close() throws IOException {
        if (open) {
            finish();
        }
    }

    /**
     * Ends the transfer without naming the file: what was written is stored and checked on its file servers, in
     * no directory, where the returned file reads it back, until {@link FsClient#discard} deletes it. For a writer
     * that must go back over what it sent.
     */
    public FsClient.Opened detach() throws IOException {
        ensureOpen();
        detached = true;
        finish();
        return unnamed;
    }

    private void finish() throws IOException {
        open = false;
        if (filled > 0) {
            hand(java.util.Arrays.copyOf(block, filled));
        }
        hand(END);
        failure();
    }
}
