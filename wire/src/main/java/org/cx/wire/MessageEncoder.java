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
        Output output = OUTPUT.get();
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
                writeFragments(ctx, output.getBuffer(), length);
            }
        } finally {
            if (output.getBuffer().length > 1 << 20) {
                OUTPUT.remove(); // do not pin a huge buffer to this thread after one large message
            }
        }
    }

    /**
     * Writes the first {@code length} bytes of {@code message} as fragments of at most a frame each, each frame its
     * own heap buffer: ahead of the (empty) buffer this encoder then writes for the message, so in order, and never
     * the whole message in direct memory at once.
     */
    private void writeFragments(ChannelHandlerContext ctx, byte[] message, int length) {
        int slice = maxFrameBytes - FRAGMENT_OVERHEAD;
        for (int from = 0; from < length; from += slice) {
            byte[] part = java.util.Arrays.copyOfRange(message, from, Math.min(length, from + slice));
            Output frame = new Output(part.length + FRAGMENT_OVERHEAD + 4, -1);
            frame.setPosition(4);
            KRYO.get().writeClassAndObject(frame, new Message.Fragment(length, part));
            int frameLength = frame.position() - 4;
            ByteBuf buffer = Unpooled.wrappedBuffer(frame.getBuffer(), 0, frameLength + 4);
            buffer.setInt(0, frameLength);
            ctx.write(buffer, ctx.voidPromise());
        }
    }
}
