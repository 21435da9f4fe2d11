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

/**
 * Turns one frame (length prefix already removed) into one {@link Message}, or fails the connection. Joins the
 * {@link Message.Fragment}s of a message larger than a frame and decodes the whole; one instance per connection.
 */
public final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {

    private static final FastThreadLocal<Kryo> KRYO = new FastThreadLocal<>() {
        @Override
        protected Kryo initialValue() {
            return ProtocolCodec.newKryo();
        }
    };

    private final int maxMessageBytes;
    /** The message being joined from fragments, or null. */
    private byte[] joining;
    private int joined;

    /** @param maxMessageBytes the largest message this end joins from fragments */
    public MessageDecoder(int maxMessageBytes) {
        super(ByteBuf.class);
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        Message message = decode(frame);
        if (message instanceof Message.Fragment f) {
            message = join(f);
        } else if (joining != null) {
            throw new MalformedMessageException(message.getClass().getSimpleName() + " between the fragments of a "
                    + "message of " + joining.length + " bytes");
        }
        if (message != null) {
            out.add(message);
        }
    }

    /** Adds {@code f} to the message being joined; returns the message once it is whole, else null. */
    private Message join(Message.Fragment f) {
        if (joining == null) {
            if (f.total() > maxMessageBytes || f.total() <= f.data().length) {
                throw new MalformedMessageException("a message of " + f.total() + " bytes in fragments; the limit is "
                        + maxMessageBytes + " (-Dcx.maxMessageBytes)");
            }
            joining = new byte[f.total()];
            joined = 0;
        }
        if (f.total() != joining.length || f.data().length > joining.length - joined) {
            throw new MalformedMessageException("a fragment of " + f.data().length + " bytes does not fit the message "
                    + "of " + joining.length + " bytes being joined (" + joined + " so far)");
        }
        System.arraycopy(f.data(), 0, joining, joined, f.data().length);
        joined += f.data().length;
        if (joined < joining.length) {
            return null;
        }
        byte[] whole = joining;
        joining = null;
        Message message = decode(whole);
        if (message instanceof Message.Fragment) {
            throw new MalformedMessageException("a fragment inside a fragmented message");
        }
        return message;
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
