package org.cx.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.api.Continuation;

/**
 * Large values on a connection ({@link PeerValues}): ahead of a message that refers to a value the other end may not
 * hold, its chunks are written, read from the store as the connection drains (a {@link ChunkedWriteHandler}, added
 * when the first value goes, keeps up to 16 chunks in flight and every message in order behind them); chunks that
 * arrive are kept by the store and not passed on. A {@link Message.ValuesReleased} leaves only for an end that holds
 * one of its values, and one that arrives lets them go from the store. Sits just after the codecs.
 *
 * <p>A producer says where each value it sends goes ({@link Message.ValueHeading}) before its chunks, and a server
 * may then {@link #relay} them, as they arrive, to the connections of the processes that will read the value: the
 * value's last hop overlaps its first instead of following it. A value is relayed only while it arrives, before
 * any message can refer to it (a server refers to a value once it holds it whole); a message that refers to one
 * still being relayed here ends that relay, and the value goes ahead of it as usual.
 */
public final class ValueLink extends ChannelDuplexHandler {
    static final String NAME = "values";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ValueLink.class);
    private static final boolean RELAY = WireConfig.relayValues();
    private final PeerValues values;
    private ChannelHandlerContext ctx;
    /** Values arriving on this connection that are passed on as they come, and to where. */
    private final Map<ValueRef, List<ValueLink>> relays = new HashMap<>();
    /** Values being relayed to this connection's other end, not yet whole there. */
    private final Set<ValueRef> relaying = new HashSet<>();
    /** Bytes of values this link passed on as they arrived ({@link #relay}). */
    private long bytesRelayed;

    /** @param takesReleases see {@link PeerValues#PeerValues(ValueStore, boolean)} */
    public ValueLink(ValueStore store, boolean takesReleases) {
        this.values = new PeerValues(store, takesReleases);
    }

    /** See {@link PeerValues#takeReleases}. On the channel's event loop. */
    public void takeReleases() {
        values.takeReleases();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof Message.ValueChunk chunk && !relays.isEmpty()) {
            ValueRef ref = ValueRef.of(chunk.ref());
            List<ValueLink> to = relays.get(ref);
            if (to != null) {
                chunk.retain(); // the store takes the chunk's reference; this one passes it on
                try {
                    values.received(chunk);
                    passOn(ref, chunk, to);
                } catch (Exception e) {
                    relays.remove(ref);
                    to.forEach(t -> t.relayEnded(ref));
                    throw e;
                } finally {
                    chunk.release();
                }
                return;
            }
        }
        if (msg instanceof Message m && values.received(m)) {
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * Passes {@code chunk}, now taken in here, on to {@code to}; the last one only once the value is whole and its
     * checksum checked. The relay ends, cut short, if the value no longer fits in memory here.
     */
    private void passOn(ValueRef ref, Message.ValueChunk chunk, List<ValueLink> to) {
        ValueStore.Arrival arrival = values.arriving(ref);
        boolean whole = arrival == null;
        if (!whole && !arrival.inMemory()) {
            relays.remove(ref);
            to.forEach(t -> t.relayEnded(ref));
            return;
        }
        for (ValueLink t : to) {
            if (t.relayed(ref, chunk, whole)) {
                bytesRelayed += chunk.length();
            }
        }
        if (whole) {
            relays.remove(ref);
        }
    }

    /**
     * Passes the chunks of {@code ref}, which are about to arrive on this connection, on to {@code to} as they come
     * (a server, to the processes that will read the value). Nothing is relayed if any of it is here already; a
     * link whose other end holds it, that is closed, or that runs on another event loop than this one is left out
     * (a server's connections share one). Nothing either with {@code -Dcx.relayValues=false}. On this link's event
     * loop.
     */
    public void relay(ValueRef ref, List<ValueLink> to) {
        if (!RELAY || values.heldOrArriving(ref) || relays.containsKey(ref)) {
            return;
        }
        List<ValueLink> targets = new ArrayList<>(to.size());
        for (ValueLink t : to) {
            if (t != this && t.ctx != null && t.ctx.executor().inEventLoop() && t.ctx.channel().isActive()
                    && !t.values.peerHolds(ref) && t.relaying.add(ref)) {
                targets.add(t);
            }
        }
        if (!targets.isEmpty()) {
            relays.put(ref, targets);
        }
    }

    /** Bytes of values this link passed on to other connections as they arrived. */
    public long bytesRelayed() {
        return bytesRelayed;
    }

    /**
     * A chunk of {@code ref}, relayed to this connection's other end; {@code last}: it is whole there after it.
     * @return false if it was not sent: the relay to this end ended meanwhile (its computation ended)
     */
    private boolean relayed(ValueRef ref, Message.ValueChunk chunk, boolean last) {
        if (!relaying.contains(ref)) {
            return false;
        }
        byte[] header = MessageEncoder.chunkHeader(chunk.ref(), chunk.offset(), chunk.length());
        ctx.write(frame(ctx.alloc(), header, chunk.data().retainedDuplicate()));
        values.store().relayed(chunk.length());
        if (last) {
            relaying.remove(ref);
            values.sentWhole(ref);
        }
        ctx.flush();
        return true;
    }

    /**
     * The relay of {@code ref} to this connection ended before the value was whole: the other end lets go of what
     * it has of it. Anything that refers to the value later takes it along whole, as if it had never been relayed.
     */
    private void relayEnded(ValueRef ref) {
        if (relaying.remove(ref)) {
            ctx.write(new Message.ValuesReleased(new byte[][] {ref.bytes()}));
            ctx.flush();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (!relaying.isEmpty() && msg instanceof Message m) {
            // A server refers to a value once it holds it whole, when its relay has ended: one still relayed here
            // ends, and the value goes whole ahead of the message as usual.
            ValueRef.forEachIn(m, this::relayEnded);
            if (msg instanceof Message.ComputationEnded e) {
                for (ValueRef ref : List.copyOf(relaying)) {
                    if (ref.computation() == e.computation()) {
                        relayEnded(ref);
                    }
                }
            }
        }
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
                        StoreChunks chunks = new StoreChunks(values.store().chunks(ref));
                        Continuation to = msg instanceof Message.Completed completed ? destination(completed, ref)
                                : null;
                        if (to != null) {
                            ctx.write(new Message.ValueHeading(ref.bytes(), to));
                        }
                        ctx.write(chunks);
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

    /** Where {@code ref} goes as a value of {@code completed}; null if it is none of its values. */
    private static Continuation destination(Message.Completed completed, ValueRef ref) {
        for (Completion c : completed.completions()) {
            for (ValueEnvelope v : c.values()) {
                if (ValueRef.is(v.value()) && ValueRef.of(v.value()).equals(ref)) {
                    return v.to();
                }
            }
        }
        return null;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        relays.forEach((ref, to) -> to.forEach(t -> t.relayEnded(ref)));
        relays.clear();
        relaying.clear();
        values.closed();
        super.channelInactive(ctx);
    }

    /**
     * A chunk's frame: {@code header}, then {@code data} (whose reference it takes) as it lies, not copied. The header
     * goes into a buffer of the same kind as the data's, so that TLS encrypts straight from both (it copies a frame
     * that mixes the heap with native memory into a native buffer first).
     */
    private static ByteBuf frame(ByteBufAllocator alloc, byte[] header, ByteBuf data) {
        ByteBuf head = data.isDirect() ? alloc.directBuffer(header.length) : alloc.heapBuffer(header.length);
        return alloc.compositeBuffer(2).addComponents(true, head.writeBytes(header), data);
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
            ByteBuf held = chunks.nextHeld();
            if (held != null) {
                return frame(allocator, header, held);
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
