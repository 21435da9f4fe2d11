package org.cx.system;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.cx.wire.Message;
import org.cx.wire.MessageEncoder;
import org.cx.wire.WireConfig;

/** Protocol frames as raw bytes, for tests that speak to a server over a plain socket. */
final class Frames {
    private Frames() {
    }

    /** {@code m} as the wire carries it: length prefix and body. */
    static byte[] of(Message m) {
        EmbeddedChannel ch = new EmbeddedChannel(new MessageEncoder(WireConfig.DEFAULT_MAX_FRAME_BYTES));
        ch.writeOutbound(m);
        ByteBuf b = ch.readOutbound();
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        ch.finishAndReleaseAll();
        return bytes;
    }
}
