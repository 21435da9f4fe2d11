package org.cx.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.util.List;

/**
 * Large values on a connection ({@link PeerValues}): ahead of a message that refers to a value the other end may not
 * hold, its chunks are written, read from the store as the connection drains (a {@link ChunkedWriteHandler}, added
 * when the first value goes, keeps up to 16 chunks in flight and every message in order behind them); chunks that
 * arrive are kept by the store and not passed on. A {@link Message.ValuesReleased} leaves only for an end that holds
 * one of its values, and one that arrives lets them go from the store. Sits just after the codecs.
 */
public final class ValueLink extends ChannelDuplexHandler {
    static final String NAME = "values";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ValueLink.class);
    private final PeerValues values;

    /** @param takesReleases see {@link PeerValues#PeerValues(ValueStore, boolean)} */
    public ValueLink(ValueStore store, boolean takesReleases) {
        this.values = new PeerValues(store, takesReleases);
    }

    /** See {@link PeerValues#takeReleases}. On the channel's event loop. */
    public void takeReleases() {
        values.takeReleases();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof Message m && values.received(m)) {
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof Message.ValuesReleased released) {
            Message.ValuesReleased held = values.passOn(released);
            if (held == null) {
                promise.trySuccess(); // the other end holds none of them
            } else {
                ctx.write(held, promise);
            }
            return;
        }
        if (msg instanceof Message m) {
            List<ValueRef> missing = values.toSendBefore(m);
            if (!missing.isEmpty()) {
                if (ctx.pipeline().get(ChunkedWriteHandler.class) == null) {
                    ctx.pipeline().addBefore(ctx.name(), "value-chunks", new ChunkedWriteHandler());
                    // A few chunks in flight, so that reading, encrypting and sending the next overlap.
                    ctx.channel().config().setWriteBufferWaterMark(new WriteBufferWaterMark(
                            8 * ValueStore.CHUNK_BYTES, 16 * ValueStore.CHUNK_BYTES));
                }
                for (ValueRef ref : missing) {
                    try {
                        ctx.write(new StoreChunks(values.store().chunks(ref)));
                    } catch (java.io.IOException e) {
                        // let go here meanwhile (its computation ended): the message still goes, and whoever
                        // reads the reference says the value is not held
                        LOG.debug("{}: {}", ctx.channel(), e.getMessage());
                    }
                }
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        values.closed();
        super.channelInactive(ctx);
    }

    /**
     * A held value's chunks as the chunked writer pulls them: each a whole frame, a chunk in memory wrapped as it is,
     * one in a file read straight into a transport buffer.
     */
    private static final class StoreChunks implements ChunkedInput<ByteBuf> {
        private final ValueStore.Chunks chunks;

        StoreChunks(ValueStore.Chunks chunks) {
            this.chunks = chunks;
        }

        @Override
        public boolean isEndOfInput() {
            return chunks.done();
        }

        @Override
        public void close() throws Exception {
            chunks.close();
        }

        @Override
        @Deprecated
        public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
            return readChunk(ctx.alloc());
        }

        @Override
        public ByteBuf readChunk(ByteBufAllocator allocator) throws Exception {
            if (chunks.done()) {
                return null;
            }
            byte[] header = MessageEncoder.chunkHeader(chunks.ref().bytes(), chunks.offset(), chunks.nextLength());
            byte[] held = chunks.nextHeld();
            if (held != null) {
                // not copied here: TLS encrypts it a record at a time from a small buffer that stays in cache
                return Unpooled.wrappedBuffer(header, held);
            }
            ByteBuf frame = allocator.directBuffer(header.length + chunks.nextLength());
            try {
                frame.writeBytes(header);
                chunks.readFileInto(frame);
                return frame;
            } catch (Exception e) {
                frame.release();
                throw e;
            }
        }

        @Override
        public long length() {
            return chunks.ref().size();
        }

        @Override
        public long progress() {
            return chunks.offset();
        }
    }
}
