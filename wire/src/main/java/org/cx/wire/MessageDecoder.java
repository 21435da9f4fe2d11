package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.List;

/** Turns one frame (length prefix already removed) into one {@link Message}, or fails the connection. */
public final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {

    private static final FastThreadLocal<Kryo> KRYO = new FastThreadLocal<>() {
        @Override
        protected Kryo initialValue() {
            return ProtocolCodec.newKryo();
        }
    };

    public MessageDecoder() {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        out.add(decode(frame));
    }

    /**
     * Kryo's input, refusing a string that claims more characters than the frame has bytes left (each takes a byte
     * at least) before Kryo allocates room for them: a 13-byte frame must not cost gigabytes.
     */
    static final class BoundedInput extends Input {
        BoundedInput(byte[] bytes) {
            super(bytes);
        }

        @Override
        public String readString() {
            int start = position;
            if (position < limit && readVarIntFlag()) {
                int characters = readVarIntFlag(true) - 1;
                if (characters > limit - position) {
                    throw new MalformedMessageException("a string of " + characters + " characters exceeds the frame");
                }
            }
            position = start;
            return super.readString();
        }
    }

    /** Decodes one frame body; throws {@link MalformedMessageException} for anything that is not a whole message. */
    public static Message decode(ByteBuf frame) {
        return decode(ByteBufUtil.getBytes(frame));
    }

    /** {@link #decode(ByteBuf)} of a frame body in an array. */
    public static Message decode(byte[] bytes) {
        Input input = new BoundedInput(bytes);
        Object decoded;
        try {
            decoded = KRYO.get().readClassAndObject(input);
        } catch (KryoException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new MalformedMessageException("undecodable frame of " + bytes.length + " bytes: " + e.getMessage(), e);
        }
        if (!(decoded instanceof Message message)) {
            throw new MalformedMessageException("frame holds no message");
        }
        if (input.position() != bytes.length) {
            throw new MalformedMessageException(
                    (bytes.length - input.position()) + " trailing bytes after " + message.getClass().getSimpleName());
        }
        return message;
    }
}
