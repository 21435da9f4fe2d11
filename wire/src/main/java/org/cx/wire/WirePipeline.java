package org.cx.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.cx.security.Tls;

/** Installs TLS, the CX framing and the codecs at the front of a pipeline. */
public final class WirePipeline {

    private WirePipeline() {
    }

    /**
     * Adds TLS (unless {@code tls} is null: plain), the frame decoder, message decoder and encoder; the caller adds its
     * own handlers after them. No message is read before the TLS handshake has authenticated both ends.
     *
     * @param accepted whether this process accepted the connection (it then requires the peer's credential) or opened
     *                 it (the peer must then be a server of the network)
     */
    public static void install(Channel channel, int maxFrameBytes, Tls tls, boolean accepted) {
        ChannelPipeline pipeline = channel.pipeline();
        if (tls != null) {
            pipeline.addLast("tls", accepted ? tls.accepting(channel.alloc()) : tls.connecting(channel.alloc()));
        }
        // failFast: refuse an oversized frame as soon as its length is read, before buffering any of it.
        pipeline.addLast("frames", new LengthFieldBasedFrameDecoder(maxFrameBytes + 4, 0, 4, 0, 4, true));
        pipeline.addLast("decoder", new MessageDecoder());
        pipeline.addLast("encoder", new MessageEncoder(maxFrameBytes));
    }
}
