package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
        byte[][] pieces = pieces(random);
        long sent = 4 + java.util.Arrays.stream(pieces).mapToLong(p -> p.length).sum();
        CompletableFuture<Void> allRead = new CompletableFuture<>();
        CompletableFuture<Void> inactive = new CompletableFuture<>();
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
                                    if (received.addAndGet(((ByteBuf) msg).readableBytes()) == sent) {
                                        allRead.complete(null);
                                    }
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

                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    // The frame decoder, ahead in the pipeline, has seen the connection end.
                                    inactive.complete(null);
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
                for (byte[] piece : pieces) { // many reads, so that the frame is gathered as a composite of them
                    out.write(piece);
                    out.flush();
                }
                allRead.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertTrue(used(alloc) > 0, "the half frame is held");
                switch (ending) {
                    case PEER_CLOSES -> peer.close();
                    case PEER_RESETS -> {
                        peer.setSoLinger(true, 0);
                        peer.close();
                    }
                    case STALLS -> { } // the check closes it
                    case LOOPS_SHUT_DOWN -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                }
                inactive.get(WAIT.toSeconds(), TimeUnit.SECONDS);
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

    /** Half a frame, in pieces of random sizes. */
    private static byte[][] pieces(Random random) {
        java.util.List<byte[]> pieces = new java.util.ArrayList<>();
        for (long total = 4; total < FRAME / 2; ) {
            byte[] piece = new byte[1 + random.nextInt(16 << 10)];
            random.nextBytes(piece);
            pieces.add(piece);
            total += piece.length;
        }
        return pieces.toArray(byte[][]::new);
    }
}
