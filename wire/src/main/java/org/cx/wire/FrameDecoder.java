package org.cx.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the byte stream into frames (a 4-byte length, then the body), refusing an oversized length as soon as it is
 * read. The reads that make up a large frame (a value's chunk, a fragment) are kept side by side until the frame is
 * whole rather than copied together: its bytes are copied once, where the frame is decoded. On an accepted
 * connection it also closes one that stalls in the middle of a frame: no byte for {@code stall} while part of a frame
 * is buffered (a peer that half-sends frames must not pin buffers for ever). A connection idle between frames is left
 * alone.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    /** Frames from this length on are composed from their reads rather than merged: past a few TLS records. */
    static final int COMPOSE_FROM = 64 << 10;
    /**
     * Merges reads into one buffer (Netty's default, one copy each) unless the frame being gathered is large: a 256
     * KiB chunk arrives in pieces of a TLS record or a socket read, and merging them copied each byte once more (and
     * again as the buffer grew) before the decoder copied it into its chunk. Small frames stay merged: decoding them
     * from many pieces cost more than the copy.
     */
    static final Cumulator BY_FRAME = (alloc, cumulation, in) -> {
        if (pendingFrameBytes(cumulation) >= COMPOSE_FROM) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        if (cumulation instanceof CompositeByteBuf) { // a large frame's reads ended with the start of a small one
            ByteBuf merged = alloc.buffer(cumulation.readableBytes() + in.readableBytes());
            merged.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            in.release();
            return merged;
        }
        return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    };

    private final long stallNanos;
    private long lastReadNanos = System.nanoTime();
    private ScheduledFuture<?> check;

    /** @param stall how long a frame may stay half-read without a byte arriving; null: for ever */
    FrameDecoder(int maxFrameBytes, Duration stall) {
        // failFast: refuse an oversized frame as soon as its length is read, before buffering any of it.
        super(maxFrameBytes + 4, 0, 4, 0, 4, true);
        this.stallNanos = stall == null ? 0 : stall.toNanos();
        setCumulator(BY_FRAME);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        if (stallNanos > 0) {
            long period = Math.max(1, stallNanos / 2);
            check = ctx.executor().scheduleAtFixedRate(() -> checkStall(ctx), period, period, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
        }
        super.handlerRemoved0(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
        }
        super.channelInactive(ctx);
    }

    /** The length of the frame {@code buffered} starts with, or -1 if its length has not all arrived. */
    private static int pendingFrameBytes(ByteBuf buffered) {
        return buffered.readableBytes() < 4 ? -1 : buffered.getInt(buffered.readerIndex());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        lastReadNanos = System.nanoTime();
        super.channelRead(ctx, msg);
    }

    private void checkStall(ChannelHandlerContext ctx) {
        ByteBuf buffered = internalBuffer();
        if (buffered.isReadable() && System.nanoTime() - lastReadNanos > stallNanos) {
            LOG.warn("closing connection from {}: {} bytes of a frame and no more for {} s", ctx.channel().remoteAddress(),
                    buffered.readableBytes(), TimeUnit.NANOSECONDS.toSeconds(stallNanos));
            check.cancel(false);
            ctx.close();
        }
    }
}
