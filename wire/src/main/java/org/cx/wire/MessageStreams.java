package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * {@link Message}s over blocking streams, framed as on a connection (4-byte length, then the Kryo bytes): the pipes
 * between a producer and its worker processes. One instance per stream pair and thread; the reading side bounds
 * every frame before allocating it, since what a worker process writes is written by task code too.
 */
public final class MessageStreams {
    private final Kryo kryo = ProtocolCodec.newKryo();
    private final Output output = new Output(4096, -1);
    private final DataInputStream in;
    private final DataOutputStream out;
    private final int maxFrameBytes;

    public MessageStreams(java.io.InputStream in, java.io.OutputStream out, int maxFrameBytes) {
        this.in = new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16));
        this.out = new DataOutputStream(new java.io.BufferedOutputStream(out, 1 << 16));
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Buffers one message; {@link #flush} sends what is buffered. */
    public void write(Message message) throws IOException {
        output.reset();
        kryo.writeClassAndObject(output, message);
        int length = output.position();
        if (length > maxFrameBytes) {
            throw new IllegalArgumentException(message.getClass().getSimpleName() + " of " + length
                    + " bytes exceeds the frame limit of " + maxFrameBytes + " bytes");
        }
        out.writeInt(length);
        out.write(output.getBuffer(), 0, length);
        if (output.getBuffer().length > 1 << 20) {
            output.setBuffer(new byte[4096], -1); // do not keep a huge buffer after one large message
        }
    }

    /**
     * Buffers {@code message} after the chunks of the large values it refers to that the other end lacks; a
     * {@link Message.ValuesReleased} only as far as the other end holds its values ({@link PeerValues#passOn}).
     */
    public void write(Message message, PeerValues values) throws IOException {
        values.write(message, m -> {
            try {
                write(m);
            } finally {
                io.netty.util.ReferenceCountUtil.release(m); // a value's chunk, written now
            }
        });
    }

    public void flush() throws IOException {
        out.flush();
    }

    /** Bytes that arrived and were not read yet (without blocking). */
    public int pending() throws IOException {
        return in.available();
    }

    /**
     * The next message; blocks until it is whole.
     *
     * @throws EOFException at the end of the stream
     * @throws MalformedMessageException for a frame over the limit or bytes that are no message
     */
    public Message read() throws IOException {
        int length = in.readInt();
        if (length < 0 || length > maxFrameBytes) {
            throw new MalformedMessageException("a frame of " + length + " bytes exceeds the limit of "
                    + maxFrameBytes);
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return MessageDecoder.decode(frame);
    }
}
