package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.concurrent.FastThreadLocal;

/** Writes a {@link Message} as one frame: 4-byte length, then the Kryo bytes. Refuses frames over the limit. */
public final class MessageEncoder extends MessageToByteEncoder<Message> {

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

    public MessageEncoder(int maxFrameBytes) {
        super(Message.class);
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message message, ByteBuf out) {
        Output output = OUTPUT.get();
        output.reset();
        KRYO.get().writeClassAndObject(output, message);
        int length = output.position();
        if (length > maxFrameBytes) {
            if (output.getBuffer().length > 1 << 20) {
                OUTPUT.remove();
            }
            throw new EncoderException(message.getClass().getSimpleName() + " of " + length
                    + " bytes exceeds the frame limit of " + maxFrameBytes + " bytes");
        }
        out.writeInt(length);
        out.writeBytes(output.getBuffer(), 0, length);
        if (output.getBuffer().length > 1 << 20) {
            OUTPUT.remove(); // do not pin a huge buffer to this thread after one large batch
        }
    }
}
