package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.Channel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.cx.security.Tls;

/**
 * The file service's frames, the same on every connection: a 4-byte length (of what follows), a kind byte, and
 * either a JSON message ({@link #JSON}: a request or its reply) or bytes of a file ({@link #DATA}: one block, or the
 * last part of one). A connection carries one request at a time.
 *
 * <p>A put is a {@code put} request, the file's blocks as DATA frames, and an {@code end} request with their
 * CRC32Cs; a get is a {@code get} request, a reply with the length, and the blocks as DATA frames.
 */
final class FsFrames {
    static final byte JSON = 1;
    static final byte DATA = 2;
    /** The longest frame: a block of data, or a JSON message (a directory listing of about 50,000 entries). */
    static final int MAX_FRAME = 16 << 20;

    private FsFrames() {
    }

    /** TLS (unless {@code tls} is null) and the frame decoder, at the front of an accepted connection's pipeline. */
    static void install(Channel channel, Tls tls) {
        if (tls != null) {
            channel.pipeline().addLast("tls", tls.accepting(channel.alloc()));
        }
        LengthFieldBasedFrameDecoder frames = new LengthFieldBasedFrameDecoder(MAX_FRAME + 1, 0, 4, 0, 4);
        // A 1 MiB block arrives in many reads: composing them, rather than copying each into one buffer, saves a
        // pass over every byte written to a file server (its disk writer takes the parts as they are).
        frames.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
        channel.pipeline().addLast("frames", frames);
    }

    static ByteBuf json(ByteBufAllocator alloc, JsonNode message) {
        ByteBuf b = alloc.buffer(256);
        b.writeInt(0).writeByte(JSON);
        try (ByteBufOutputStream out = new ByteBufOutputStream(b)) {
            Json.MAPPER.writeValue((java.io.OutputStream) out, message);
        } catch (IOException e) {
            b.release();
            throw new UncheckedIOException(e);
        }
        b.setInt(0, b.readableBytes() - 4);
        return b;
    }

    /** The header of a DATA frame of {@code length} bytes, to be followed by them. */
    static ByteBuf dataHeader(ByteBufAllocator alloc, int length) {
        return alloc.buffer(5).writeInt(length + 1).writeByte(DATA);
    }
}
