package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
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

    /** The bytes Kryo writes for the class of a {@link Message.Fragment}, before its fields. */
    private static final byte[] FRAGMENT_PREFIX = fragmentPrefix();
    /** The bytes Kryo writes for the class of a {@link Message.ValueChunk}, before its fields. */
    private static final byte[] CHUNK_PREFIX = chunkPrefix();

    private final int maxMessageBytes;
    /** The message being joined from fragments, or null. */
    private byte[] joining;
    private int joined;

    private static byte[] fragmentPrefix() {
        Output out = new Output(16);
        ProtocolCodec.newKryo().writeClassAndObject(out, new Message.Fragment(0, new byte[0]));
        return java.util.Arrays.copyOf(out.getBuffer(), out.position() - 2); // less the total (0) and length (0)
    }

    private static byte[] chunkPrefix() {
        Output out = new Output(64);
        ProtocolCodec.newKryo().writeClassAndObject(out, new Message.ValueChunk(new byte[0], 0, new byte[0]));
        return java.util.Arrays.copyOf(out.getBuffer(), out.position() - 3); // less the ref, offset and data (0 each)
    }

    /** @param maxMessageBytes the largest message this end joins from fragments */
    public MessageDecoder(int maxMessageBytes) {
        super(ByteBuf.class);
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        Message message;
        if (startsWith(frame, FRAGMENT_PREFIX)) {
            message = joinFrom(frame); // straight from the frame into the message: no copy of the fragment itself
        } else if (startsWith(frame, CHUNK_PREFIX)) {
            message = chunkFrom(frame);
        } else {
            message = decode(frame);
        }
        if (message instanceof Message.Fragment f) {
            message = join(f.total(), Unpooled.wrappedBuffer(f.data()));
        } else if (message != null && joining != null) {
            io.netty.util.ReferenceCountUtil.release(message);
            throw new MalformedMessageException(message.getClass().getSimpleName() + " between the fragments of a "
                    + "message of " + joining.length + " bytes");
        }
        if (message != null) {
            out.add(message);
        }
    }

    /** Whether {@code frame} starts with {@code prefix} (a class's id). */
    private static boolean startsWith(ByteBuf frame, byte[] prefix) {
        if (frame.readableBytes() < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (frame.getByte(frame.readerIndex() + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads a value's chunk: its header through Kryo, its data straight from the frame into a buffer of the {@link
     * ChunkPool} (one copy, into memory the heap neither zeroes nor collects; not a slice of the frame, which would keep
     * the connection's whole read buffer alive as long as the value).
     */
    private static Message.ValueChunk chunkFrom(ByteBuf frame) {
        frame.skipBytes(CHUNK_PREFIX.length);
        byte[] head = new byte[Math.min(frame.readableBytes(), ValueRef.BYTES + 32)];
        frame.getBytes(frame.readerIndex(), head);
        Input in = new Input(head);
        byte[] ref;
        long offset;
        int length;
        try {
            ref = WireFields.readBytes(in);
            offset = in.readVarLong(true);
            length = in.readVarInt(true);
        } catch (KryoException e) {
            throw new MalformedMessageException("a value chunk's header is cut short");
        }
        frame.skipBytes(in.position());
        if (length != frame.readableBytes()) {
            throw new MalformedMessageException("a value chunk claims " + length + " bytes and holds "
                    + frame.readableBytes());
        }
        WireFields.checkValueChunk(ref, offset, length);
        ByteBuf data = ChunkPool.SHARED.take(length);
        frame.readBytes(data, length);
        return new Message.ValueChunk(ref, offset, data);
    }

    /** Reads a fragment's fields from {@code frame} and joins its data; the message once whole, else null. */
    private Message joinFrom(ByteBuf frame) {
        frame.skipBytes(FRAGMENT_PREFIX.length);
        int total = readVarInt(frame);
        int length = readVarInt(frame);
        if (length != frame.readableBytes()) {
            throw new MalformedMessageException("a fragment claims " + length + " bytes and holds "
                    + frame.readableBytes());
        }
        return join(total, frame);
    }

    /** Kryo's unsigned variable-length int, at most 5 bytes. */
    private static int readVarInt(ByteBuf in) {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (!in.isReadable()) {
                throw new MalformedMessageException("a fragment's header is cut short");
            }
            byte b = in.readByte();
            value |= (b & 0x7f) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new MalformedMessageException("a fragment's header holds a malformed number");
    }

    /**
     * Adds the readable bytes of {@code data}, part of a message of {@code total} bytes, to the message being
     * joined; returns the message once it is whole, else null.
     */
    private Message join(int total, ByteBuf data) {
        int length = data.readableBytes();
        if (joining == null) {
            if (total > maxMessageBytes || total <= length) {
                throw new MalformedMessageException("a message of " + total + " bytes in fragments; the limit is "
                        + maxMessageBytes + " (-Dcx.maxMessageBytes)");
            }
            joining = new byte[total];
            joined = 0;
        }
        if (total != joining.length || length > joining.length - joined) {
            throw new MalformedMessageException("a fragment of " + length + " bytes does not fit the message "
                    + "of " + joining.length + " bytes being joined (" + joined + " so far)");
        }
        data.readBytes(joining, joined, length);
        joined += length;
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
