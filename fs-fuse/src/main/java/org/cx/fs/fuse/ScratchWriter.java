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
     */
    ScratchWriter(FsClient client, Path dir, String path, boolean keepContent) throws IOException {
        this.client = client;
        this.path = path;
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
        ByteBuffer forStream = data.duplicate();
        int total = 0;
        while (data.hasRemaining()) {
            total += channel.write(data, offset + total);
        }
        synchronized (this) {
            dirty = true;
            if (stream == null) {
                return total;
            }
            if (offset < streamed) {
                abandonStream(); // it rewrites what was sent: the scratch file goes whole on close instead
            } else if (offset > streamed) {
                addAhead(offset, offset + total);
            } else {
                try {
                    stream.write(forStream);
                    streamed += total;
                    sendAhead();
                } catch (IOException e) {
                    abandonStream(); // the scratch file has it all
                }
            }
            return total;
        }
    }

    synchronized void truncate(long size) throws IOException {
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
                sendFromScratch(channel.size()); // what is left: writes ahead of a gap, and the gap if never written
                stream = null;
                ahead.clear();
                s.close();
                dirty = false;
                return;
            } catch (IOException e) {
                LOG.debug("streaming {} failed ({}); sending it whole", path, e.getMessage());
            }
        }
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
