package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Writes a {@link Message} as one frame: 4-byte length, then the Kryo bytes; a message larger than a frame as
 * consecutive {@link Message.Fragment} frames. Refuses a message over the message limit.
 */
public final class MessageEncoder extends MessageToByteEncoder<Message> {
    /** Room in a frame for a fragment's own fields around its slice of the message. */
    static final int FRAGMENT_OVERHEAD = 32;
    private static final byte[] EMPTY = new byte[0];
    /**
     * Data per fragment: small enough that a fragment's frame, encrypted or arriving, fits Netty's pooled buffers (at
     * most 1 MiB), large enough to cost nothing; as a value's chunks ({@link ValueStore#CHUNK_BYTES}).
     */
    static final int FRAGMENT_BYTES = ValueStore.CHUNK_BYTES;

    private static final FastThreadLocal<Kryo> KRYO = new FastThreadLocal<>() {
        @Override
        protected Kryo initialValue() {
            return ProtocolCodec.newKryo();
        }
    };
    private static final FastThreadLocal<Output> OUTPUT = new FastThreadLocal<>() {
        @Override
        protected Output initialValue() {
            return new Output(4096, -1);
        }
    };

    private final int maxFrameBytes;
    private final int maxMessageBytes;

    /** An encoder that sends every message in one frame, refusing any larger. */
    public MessageEncoder(int maxFrameBytes) {
        this(maxFrameBytes, maxFrameBytes);
    }

    public MessageEncoder(int maxFrameBytes, int maxMessageBytes) {
        super(Message.class);
        this.maxFrameBytes = maxFrameBytes;
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message message, ByteBuf out) {
        long hint = sizeHint(message);
        Output output;
        if (hint > 1 << 20 && hint <= maxMessageBytes && hint < Integer.MAX_VALUE - 4096) {
            output = new Output((int) hint + 4096, -1); // sized at once: no copies while it grows
            OUTPUT.set(output);
        } else {
            output = OUTPUT.get();
        }
        output.reset();
        try {
            KRYO.get().writeClassAndObject(output, message);
            int length = output.position();
            if (length > maxMessageBytes) {
                throw new EncoderException(message.getClass().getSimpleName() + " of " + length
                        + " bytes exceeds the message limit of " + maxMessageBytes + " bytes");
            }
            if (length <= maxFrameBytes) {
                out.writeInt(length);
                out.writeBytes(output.getBuffer(), 0, length);
            } else {
                OUTPUT.remove(); // the fragments hold slices of its buffer until they are written
                writeFragments(ctx, output.getBuffer(), length);
            }
        } finally {
            if (output.getBuffer().length > 1 << 20) {
                OUTPUT.remove(); // do not pin a huge buffer to this thread after one large message
            }
        }
    }

    /** About the bytes {@code message} takes encoded, for the messages that carry application data; else 0. */
    public static long sizeHint(Message message) {
        try {
            return dataBytes(message);
        } catch (NullPointerException e) {
            return 0; // a message read from the wire may hold nulls where a sender puts none: no hint then
        }
    }

    private static long dataBytes(Message message) {
        long bytes = 0;
        switch (message) {
            case Message.Completed c -> {
                for (Completion completion : c.completions()) {
                    bytes += completion.frameBytes();
                }
            }
            case Message.Assign a -> bytes = readyBytes(a.tasks());
            case Message.Routed r -> bytes = sizeHint(r.payload());
            case Message.Result r -> bytes = r.value().length + 128;
            case Message.Submit s -> bytes = s.root().body().length + 256;
            default -> {
            }
        }
        return bytes;
    }

    /** About the bytes {@code payload} takes encoded, for those that carry application data; else 0. */
    public static long sizeHint(RoutedPayload payload) {
        return switch (payload) {
            case RoutedPayload.Value v -> v.value().value().length + 256;
            case RoutedPayload.Transfer t -> readyBytes(t.tasks());
            default -> 0;
        };
    }

    private static long readyBytes(ReadyTask[] tasks) {
        long bytes = 0;
        for (ReadyTask t : tasks) {
            bytes += t.bytes();
        }
        return bytes;
    }

    /**
     * The start of the frame of a {@link Message.ValueChunk} of {@code length} bytes: its length prefix and every
     * field up to the data, which follows it ({@link ValueLink} writes chunks as such frames, straight from the
     * store).
     */
    static byte[] chunkHeader(byte[] ref, long offset, int length) {
        Output header = new Output(ValueRef.BYTES + 32, -1);
        header.setPosition(4);
        KRYO.get().writeClassAndObject(header, new Message.ValueChunk(ref, offset, EMPTY));
        header.setPosition(header.position() - 1); // the empty array's length, 0, one byte
        header.writeVarInt(length, true);
        int headerLength = header.position();
        byte[] bytes = header.toBytes();
        java.nio.ByteBuffer.wrap(bytes).putInt(0, headerLength - 4 + length);
        return bytes;
    }

    /**
     * Writes the first {@code length} bytes of {@code message} as fragments of at most a frame each, ahead of the
     * (empty) buffer this encoder then writes for the message, so in order. Each frame is a small header of its own
     * and a slice of {@code message}, not a copy: the caller must not reuse {@code message}.
     */
    private void writeFragments(ChannelHandlerContext ctx, byte[] message, int length) {
        int slice = Math.min(FRAGMENT_BYTES, maxFrameBytes - FRAGMENT_OVERHEAD);
        // A fragment is its class id, the total and its data as a byte array: a varint length, then the bytes.
        Output header = new Output(FRAGMENT_OVERHEAD, -1);
        for (int from = 0; from < length; from += slice) {
            int n = Math.min(slice, length - from);
            header.reset();
            header.setPosition(4);
            KRYO.get().writeClassAndObject(header, new Message.Fragment(length, EMPTY));
            header.setPosition(header.position() - 1); // the empty array's length, 0, one byte
            header.writeVarInt(n, true);
            int headerLength = header.position();
            ByteBuf head = Unpooled.copiedBuffer(header.getBuffer(), 0, headerLength);
            head.setInt(0, headerLength - 4 + n);
            ctx.write(Unpooled.wrappedBuffer(head, Unpooled.wrappedBuffer(message, from, n)), ctx.voidPromise());
        }
    }
}
