package org.cx.fs.fuse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.nio.CxFileSystemProvider;
import org.cx.fs.nio.CxWriteChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file being written: a scratch file, sent when closed. While the writes come in order from the start, they go
 * to the federation as they come too (write-behind), and closing only finishes that transfer; the first write
 * out of order, or a truncation, abandons it and the scratch file is sent instead.
 */
final class ScratchWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ScratchWriter.class);

    private final FsClient client;
    final String path;
    final Path scratch;
    final FileChannel channel;
    boolean dirty;
    /** The transfer under way while writes come in order; null once they did not (or after a close). */
    private CxWriteChannel stream;
    private long streamed;

    /**
     * @param keepContent whether the file's content is fetched first (opened for writing without truncation);
     *                    otherwise it starts empty and streams while written in order
     */
    ScratchWriter(FsClient client, String path, boolean keepContent) throws IOException {
        this.client = client;
        this.path = path;
        this.scratch = Files.createTempFile("cx-fuse-", ".part");
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

    /** Writes {@code data} at {@code offset}; returns how many bytes. */
    synchronized int write(ByteBuffer data, long offset) throws IOException {
        ByteBuffer forStream = data.duplicate();
        int total = 0;
        while (data.hasRemaining()) {
            total += channel.write(data, offset + total);
        }
        dirty = true;
        if (stream != null && offset == streamed) {
            try {
                stream.write(forStream);
                streamed += total;
            } catch (IOException e) {
                abandonStream(); // the scratch file has it all: it is sent on close instead
            }
        } else {
            abandonStream();
        }
        return total;
    }

    synchronized void truncate(long size) throws IOException {
        channel.truncate(size);
        dirty = true;
        if (size != streamed) {
            abandonStream();
        }
    }

    private void abandonStream() {
        if (stream != null) {
            stream.abandon();
            stream = null;
        }
    }

    synchronized void send() throws IOException {
        if (!dirty) {
            return;
        }
        if (stream != null && streamed == channel.size()) {
            CxWriteChannel s = stream;
            stream = null;
            try {
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
