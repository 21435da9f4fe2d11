package org.cx.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import java.time.Duration;
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
        install(channel, maxFrameBytes, tls, accepted, null);
    }

    /**
     * As {@link #install(Channel, int, Tls, boolean)}; the connection is closed if part of a frame waits
     * {@code frameStall} for the rest with no byte arriving (null: never).
     */
    public static void install(Channel channel, int maxFrameBytes, Tls tls, boolean accepted, Duration frameStall) {
        install(channel, maxFrameBytes, tls, accepted, frameStall, null);
    }

    /**
     * As {@link #install(Channel, int, Tls, boolean, Duration)}, and large values to and from {@code values}
     * ({@link ValueLink}; null: none travel by reference on this connection).
     */
    public static void install(Channel channel, int maxFrameBytes, Tls tls, boolean accepted, Duration frameStall,
                               ValueStore values) {
        ChannelPipeline pipeline = channel.pipeline();
        if (tls != null) {
            pipeline.addLast("tls", accepted ? tls.accepting(channel.alloc()) : tls.connecting(channel.alloc()));
        }
        pipeline.addLast("frames", new FrameDecoder(maxFrameBytes, frameStall));
        pipeline.addLast("decoder", new MessageDecoder(WireConfig.maxMessageBytes()));
        pipeline.addLast("encoder", new MessageEncoder(maxFrameBytes, Math.max(maxFrameBytes,
                WireConfig.maxMessageBytes())));
        if (values != null) {
            // What this end opened leads to a server; an accepted peer may say which values go once it proves one.
            pipeline.addLast(ValueLink.NAME, new ValueLink(values, !accepted));
        }
    }
}
