package org.cx.fs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.cx.fs.FsException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A blob on its way into a file server: its blocks written to a part file as they come, each checked against the
 * client's CRC32C at the end, then renamed into place and forced to disk before the reply. Its methods run on the
 * file server's disk pool, in order per connection; a failure is kept and answered at the end.
 */
final class IncomingBlob {
    private static final Logger LOG = LoggerFactory.getLogger(IncomingBlob.class);
    private final Path target;
    private final Path part;
    private final Throttle throttle;
    private final String server;
    private FileChannel channel;
    private final List<Integer> crcs = new ArrayList<>();
    private long size;
    private FsException failure;
    /** Whether the part file was renamed to the blob (which is not durable until end's forced writes return). */
    private boolean moved;

    /**
     * @param target   the blob's path
     * @param incoming where part files are written
     * @param server   the file server's id, for messages
     */
    IncomingBlob(Path target, Path incoming, Throttle throttle, String server) {
        this.target = target;
        this.part = incoming.resolve(target.getFileName() + ".part");
        this.throttle = throttle;
        this.server = server;
    }

    void open(ChannelHandlerContext ctx) {
        try {
            if (Files.exists(target)) {
                throw new FsException(Code.EEXIST, "blob " + target.getFileName() + " exists already");
            }
            channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (IOException e) {
            failure = e instanceof FsException f ? f : new FsException(Code.EIO, "cannot create a file on "
                    + server + ": " + e.getMessage());
        }
    }

    void write(ByteBuf block) {
        if (failure != null || channel == null) {
            return;
        }
        try {
            int n = block.readableBytes();
            ByteBuffer[] parts = block.nioBuffers();
            crcs.add(Blocks.crc(parts));
            throttle.take(n);
            for (long left = n; left > 0; ) {
                left -= channel.write(parts);
            }
            size += n;
        } catch (IOException e) {
            failure = diskFailure(e);
        }
    }

    void end(ChannelHandlerContext ctx, List<Integer> expected) {
        try {
            if (failure != null) {
                throw failure;
            }
            if (!expected.equals(crcs)) {
                throw new FsException(Code.EIO, "the blocks that arrived at " + server + " do not match their "
                        + "checksums: the file was not stored");
            }
            // Renamed first, then forced: on journaling file systems the file's forced write then commits the
            // rename with it, and forcing the directory finds nothing left to do (one journal commit per file,
            // not two). A blob nobody named yet may be renamed before it is durable: the name service names it
            // only after this reply.
            Files.createDirectories(target.getParent());
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
            moved = true;
            channel.force(true);
            channel.close();
            NameStore.forceDirectory(target.getParent());
            ObjectNode ok = Json.object().put("ok", true).put("size", size);
            ArrayNode list = ok.putArray("crcs");
            crcs.forEach(list::add);
            FsHandler.reply(ctx, ok);
        } catch (IOException e) {
            abandon();
            FsHandler.refuse(ctx, e instanceof FsException f ? f : diskFailure(e));
        }
    }

    void abandon() {
        try {
            if (channel != null) {
                channel.close();
            }
            Files.deleteIfExists(moved ? target : part);
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", moved ? target : part, e.getMessage());
        }
    }

    private FsException diskFailure(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("No space left") ? new FsException(Code.ENOSPC, "file server " + server + " has no space "
                + "left on its disk: the file was not stored")
                : new FsException(Code.EIO, "file server " + server + " cannot write: " + m);
    }
}
