package org.cx.fs.fuse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.nio.CxFileSystemProvider;
import org.cx.fs.nio.CxWriteChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file being written: a scratch file, sent when closed. While no write touches bytes already sent, the file goes to
 * the federation as it is written (write-behind): a write at the end of what was sent goes at once, with whatever
 * writes beyond it made contiguous (the kernel's write-back and the mount's several threads deliver a sequential
 * write a little out of order), read back from the scratch file; closing sends the rest from the scratch file and
 * finishes that transfer. A write or truncation below the end of what was sent abandons the transfer, and the
 * scratch file is sent whole instead.
 *
 * <p>A file opened only for writing need not keep what it sent ({@code keepsSent} false): a write at the end of what
 * was sent then goes to the transfer alone, and the scratch file holds only what was written ahead of it. A write
 * or truncation below the end of what was sent (rare: a header patched at the end) first reads the sent bytes back:
 * from the transfer, ended without naming the file (its blocks are then deleted), or from the file named by an
 * earlier flush.
 */
final class ScratchWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ScratchWriter.class);

    /** Bytes read back from the scratch file at a time to send them. */
    private static final int SEND_BUFFER = 1 << 20;

    private final FsClient client;
    final String path;
    final Path scratch;
    final FileChannel channel;
    boolean dirty;
    /** Whether bytes sent in order are written to the scratch file too. */
    private final boolean keepsSent;
    /** Whether the scratch file holds every byte of the file; false once bytes went to the transfer alone. */
    private boolean scratchWhole = true;
    /** Why bytes that went to the transfer alone were lost, if they were. */
    private IOException lost;
    /** The transfer under way while no write touched what it sent; null once one did (or after a close). */
    private CxWriteChannel stream;
    /** Bytes of the file the transfer has sent: the scratch file's first bytes, unchanged since. */
    private long streamed;
    /** Ranges written beyond {@link #streamed}, start to end: disjoint, not touching, sent once they join it. */
    private final TreeMap<Long, Long> ahead = new TreeMap<>();
    /** What {@link #sendFromScratch} reads into; made at its first use, kept for the file's next ranges. */
    private ByteBuffer readBack;

    /**
     * @param dir         where the scratch file goes
     * @param keepContent whether the file's content is fetched first (opened for writing without truncation);
     *                    otherwise it starts empty and streams while written in order
     * @param keepsSent   whether bytes sent in order are kept in the scratch file too (the file may be read
     *                    through this handle); otherwise a write below what was sent reads it back first
     */
    ScratchWriter(FsClient client, Path dir, String path, boolean keepContent, boolean keepsSent) throws IOException {
        this.client = client;
        this.path = path;
        this.keepsSent = keepsSent;
        this.scratch = Files.createTempFile(dir, "cx-fuse-", ".part");
        this.channel = FileChannel.open(scratch, StandardOpenOption.READ, StandardOpenOption.WRITE);
        if (keepContent) {
            try {
                // Not closed: closing a channel's stream closes the channel, which stays open for the writes.
                client.read(path, java.nio.channels.Channels.newOutputStream(channel), FsClient.Progress.NONE);
            } catch (FsException e) {
                if (e.code() != FsException.Code.ENOENT) {
                    close();
                    throw e;
                }
            }
        } else {
            dirty = true; // created or truncated: empty until written, and sent even so
            stream = CxFileSystemProvider.writer(client, path);
        }
    }

    /**
     * Writes {@code data} at {@code offset}; returns how many bytes. The mount's threads write the scratch file at
     * once, and take turns only to send: whatever the interleaving, what was sent is the scratch file's first bytes,
     * or a later write below its end abandons the transfer.
     */
    int write(ByteBuffer data, long offset) throws IOException {
        ByteBuffer again = data.duplicate();
        if (!keepsSent) {
            synchronized (this) {
                if (stream != null && offset == streamed) {
                    return sendAlone(data);
                }
                makeScratchWhole(offset);
            }
        }
        int total = writeScratch(data, offset);
        synchronized (this) {
            dirty = true;
            if (stream == null) {
                return total;
            }
            if (offset < streamed) {
                if (scratchWhole) {
                    abandonStream(); // it rewrites what was sent: the scratch file goes whole on close instead
                } else {
                    // What was sent passed this write while it went to the scratch file: read what was sent back,
                    // then this write again over it.
                    makeScratchWhole(offset);
                    writeScratch(again, offset);
                }
            } else if (offset > streamed) {
                addAhead(offset, offset + total);
            } else {
                sendNext(again);
            }
            return total;
        }
    }

    private int writeScratch(ByteBuffer data, long offset) throws IOException {
        int total = 0;
        while (data.hasRemaining()) {
            total += channel.write(data, offset + total);
        }
        return total;
    }

    /** Sends {@code data}, the bytes at the end of what was sent, to the transfer alone. */
    private int sendAlone(ByteBuffer data) throws IOException {
        int n = data.remaining();
        dirty = true;
        scratchWhole = false;
        sendNext(data);
        return n;
    }

    /** Sends {@code data}, the bytes at the end of what was sent, and the ranges written ahead that it now joins. */
    private void sendNext(ByteBuffer data) throws IOException {
        int n = data.remaining();
        try {
            stream.write(data);
            streamed += n;
            sendAhead();
        } catch (IOException e) {
            failed(e);
        }
    }

    /**
     * The transfer failed: the scratch file goes whole on close if it has every byte; otherwise what went to the
     * transfer alone is lost, and this write and every later one fail.
     */
    private void failed(IOException e) throws IOException {
        abandonStream();
        if (!scratchWhole) {
            lost = e;
            throw e;
        }
    }

    /**
     * Before a write at {@code offset} or a truncation to it goes to the scratch file: if it falls below bytes that
     * went to the transfer alone, reads those back into the scratch file, which is sent whole from then on.
     */
    private void makeScratchWhole(long offset) throws IOException {
        if (lost != null) {
            throw new IOException("an earlier write of " + path + " failed: " + lost.getMessage(), lost);
        }
        if (scratchWhole || offset >= streamed) {
            return;
        }
        long[] at = {0};
        try {
            FsClient.Opened sent;
            boolean detached = stream != null;
            if (detached) {
                CxWriteChannel s = stream;
                stream = null;
                ahead.clear(); // it is in the scratch file, which now goes whole
                sent = s.detach();
            } else {
                sent = client.open(path); // named by an earlier flush
            }
            try {
                client.readBlocks(sent, 0, sent.entry().layout().blocks(), (i, block, n) -> {
                    at[0] += writeScratch(ByteBuffer.wrap(block, 0, n), at[0]);
                });
            } finally {
                if (detached) {
                    client.discard(sent);
                }
            }
        } catch (IOException e) {
            lost = e; // what went to the transfer alone cannot be had back
            throw e;
        }
        scratchWhole = true;
        dirty = true;
        LOG.debug("{}: a write below the {} bytes sent; read them back to send the file whole", path, at[0]);
    }

    /** The file's size as written so far. */
    synchronized long size() throws IOException {
        return scratchWhole ? channel.size() : Math.max(streamed, channel.size());
    }

    synchronized void truncate(long size) throws IOException {
        makeScratchWhole(size);
        channel.truncate(size);
        dirty = true;
        if (size < streamed) {
            abandonStream();
        }
        ahead.tailMap(size, true).clear();
        Map.Entry<Long, Long> last = ahead.lastEntry();
        if (last != null && last.getValue() > size) {
            ahead.put(last.getKey(), size);
        }
    }

    /** Records that {@code [from, to)} was written, joining the ranges it overlaps or touches. */
    private void addAhead(long from, long to) {
        Map.Entry<Long, Long> before = ahead.floorEntry(from);
        if (before != null && before.getValue() >= from) {
            from = before.getKey();
            to = Math.max(to, before.getValue());
        }
        for (Map.Entry<Long, Long> next = ahead.ceilingEntry(from); next != null && next.getKey() <= to;
                next = ahead.ceilingEntry(from)) {
            to = Math.max(to, next.getValue());
            ahead.remove(next.getKey());
        }
        ahead.put(from, to);
    }

    /** Sends the ranges written ahead that now join (or overlap) what was sent. */
    private void sendAhead() throws IOException {
        for (Map.Entry<Long, Long> next = ahead.firstEntry(); next != null && next.getKey() <= streamed;
                next = ahead.firstEntry()) {
            ahead.pollFirstEntry();
            if (next.getValue() > streamed) {
                sendFromScratch(next.getValue());
            }
        }
    }

    /** Sends the scratch file's bytes from {@link #streamed} up to {@code end}. */
    private void sendFromScratch(long end) throws IOException {
        while (streamed < end) {
            if (readBack == null) {
                readBack = ByteBuffer.allocate(SEND_BUFFER);
            }
            readBack.clear().limit((int) Math.min(SEND_BUFFER, end - streamed));
            int n = channel.read(readBack, streamed);
            if (n < 0) {
                throw new IOException("the scratch file " + scratch + " ends before " + end);
            }
            stream.write(readBack.flip());
            streamed += n;
        }
    }

    private void abandonStream() {
        ahead.clear();
        if (stream != null) {
            stream.abandon();
            stream = null;
        }
    }

    synchronized void send() throws IOException {
        if (!dirty) {
            return;
        }
        if (stream != null) {
            CxWriteChannel s = stream;
            try {
                sendFromScratch(size()); // what is left: writes ahead of a gap, and the gap if never written
                stream = null;
                ahead.clear();
                s.close();
                dirty = false;
                return;
            } catch (IOException e) {
                failed(e);
                LOG.debug("streaming {} failed ({}); sending it whole", path, e.getMessage());
            }
        }
        makeScratchWhole(0); // after an earlier flush, the file named then is the start of this one
        abandonStream();
        try (InputStream in = Files.newInputStream(scratch)) {
            client.write(path, in, channel.size(), FsClient.Progress.NONE);
        }
        dirty = false;
    }

    /** Whether the file still goes as it is written (no write has touched what was sent). For tests. */
    synchronized boolean streaming() {
        return stream != null;
    }

    /** Bytes sent while written. For tests. */
    synchronized long sent() {
        return streamed;
    }

    void close() {
        synchronized (this) {
            abandonStream();
        }
        try {
            channel.close();
            Files.deleteIfExists(scratch);
        } catch (IOException e) {
            LOG.warn("cannot remove scratch file {}: {}", scratch, e.getMessage());
        }
    }
}
