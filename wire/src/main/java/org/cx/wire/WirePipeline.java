package org.cx.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** Installs the CX framing and codecs at the front of a pipeline. */
public final class WirePipeline {

    private WirePipeline() {
    }

    /** Adds frame decoder, message decoder and encoder; the caller adds its own handlers after them. */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
        // failFast: refuse an oversized frame as soon as its length is read, before buffering any of it.
        pipeline.addLast("frames", new LengthFieldBasedFrameDecoder(maxFrameBytes + 4, 0, 4, 0, 4, true));
        pipeline.addLast("decoder", new MessageDecoder());
        pipeline.addLast("encoder", new MessageEncoder(maxFrameBytes));
    }
}
