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
 * read. Reads that make up a large frame (a value's chunk, a fragment) are kept side by side until the frame is
 * whole rather than copied together: its bytes are copied once, where the frame is decoded. On an accepted connection it also closes one that stalls in the middle of a frame: no byte for
 * {@code stall} while part of a frame is buffered (a peer that half-sends frames must not pin buffers for ever). A
 * connection idle between frames is left alone.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    /** Buffered bytes from which reads are composed instead of merged: past a few TLS records. */
    static final int COMPOSE_FROM = 64 << 10;
    /**
     * Merges reads into one buffer (Netty's default, one copy each) while little is buffered, composes them from
     * {@link #COMPOSE_FROM} on, until what was composed has been read: a 256 KiB chunk arrives in pieces of a TLS
     * record or a socket read, and merging them copied each byte once more (and again as the buffer grew) before the
     * decoder copied it into its chunk.
     */
    static final Cumulator BY_SIZE = (alloc, cumulation, in) ->
            cumulation instanceof CompositeByteBuf
                    || cumulation.readableBytes() + in.readableBytes() >= COMPOSE_FROM
                    ? COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in)
                    : MERGE_CUMULATOR.cumulate(alloc, cumulation, in);

    private final long stallNanos;
    private long lastReadNanos = System.nanoTime();
    private ScheduledFuture<?> check;

    /** @param stall how long a frame may stay half-read without a byte arriving; null: for ever */
    FrameDecoder(int maxFrameBytes, Duration stall) {
        // failFast: refuse an oversized frame as soon as its length is read, before buffering any of it.
        super(maxFrameBytes + 4, 0, 4, 0, 4, true);
        this.stallNanos = stall == null ? 0 : stall.toNanos();
        setCumulator(BY_SIZE);
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
