package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection that ends however it ends while half of a large frame is buffered (its reads kept side by side, not
 * merged) gives every buffer back: the bytes an accepting end allocated for it are all released once the connection
 * is gone. Counted by an instrumented allocator of the accepting end's own, over real loopback sockets.
 */
class FrameBuffersTest {
    private static final int FRAME = 1 << 20;
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** How the connection ends while the frame is half read. */
    enum Ending {
        /** The peer closes its socket. */
        PEER_CLOSES,
        /** The peer resets the connection (SO_LINGER 0). */
        PEER_RESETS,
        /** The peer goes quiet and the accepting end's stall check closes the connection. */
        STALLS,
        /** The accepting end's event loops shut down with the connection open. */
        LOOPS_SHUT_DOWN
    }

    @ParameterizedTest
    @EnumSource(Ending.class)
    void aHalfReadLargeFrameIsReleasedHoweverTheConnectionEnds(Ending ending) throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        Random random = new Random(seed);
        UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(random.nextBoolean(), false);
        AtomicLong received = new AtomicLong();
        EventLoopGroup group = EventLoops.create("frame-buffers-test", 1);
        try {
            Channel server = new ServerBootstrap().group(group).channel(EventLoops.serverChannel())
                    .childOption(ChannelOption.ALLOCATOR, alloc)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast("count", new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    received.addAndGet(((ByteBuf) msg).readableBytes());
                                    ctx.fireChannelRead(msg);
                                }
                            });
                            WirePipeline.install(ch, 2 * FRAME, null, true,
                                    ending == Ending.STALLS ? Duration.ofMillis(200) : null);
                            ch.pipeline().addLast("sink", new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ReferenceCountUtil.release(msg);
                                }
                            });
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            Socket peer = new Socket("127.0.0.1", port);
            try {
                peer.setTcpNoDelay(true);
                OutputStream out = peer.getOutputStream();
                new DataOutputStream(out).writeInt(FRAME);
                byte[] piece = new byte[1 + random.nextInt(16 << 10)];
                long sent = 4;
                while (sent < FRAME / 2) { // many reads, so that the frame is gathered as a composite of them
                    random.nextBytes(piece);
                    out.write(piece);
                    out.flush();
                    sent += piece.length;
                }
                long all = sent;
                await("the accepting end has read what was sent", () -> received.get() == all);
                awaitUsed(alloc, "the half frame is held", used -> used > 0);
                switch (ending) {
                    case PEER_CLOSES -> peer.close();
                    case PEER_RESETS -> {
                        peer.setSoLinger(true, 0);
                        peer.close();
                    }
                    case STALLS -> { } // the check closes it
                    case LOOPS_SHUT_DOWN -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                }
                awaitUsed(alloc, "every buffer of the connection is released", used -> used == 0);
            } finally {
                peer.close();
            }
            server.close();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        assertEquals(0, used(alloc), "bytes still allocated after the connection ended " + ending);
    }

    private static long used(UnpooledByteBufAllocator alloc) {
        return alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory();
    }

    private static void awaitUsed(UnpooledByteBufAllocator alloc, String what, LongPredicate condition)
            throws InterruptedException, IOException {
        await(what, () -> condition.test(used(alloc)));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }
}
