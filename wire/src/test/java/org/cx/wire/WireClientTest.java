package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class WireClientTest {

    /**
     * A client closed while it fails over (its servers gone) stops trying at once, instead of retrying on event
     * loops that no longer run until the fail-over deadline.
     */
    @Test
    void failingOverStopsWhenTheClientShutsDown() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // closed again: connections to it are refused
        }
        EventLoopGroup group = EventLoops.create("wire-client-test", 1);
        Message.Hello hello = new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "p", 1);
        CompletableFuture<Void> failOver = CompletableFuture.runAsync(() -> {
            try {
                WireClient.connectAny(group, List.of("127.0.0.1:" + deadPort), null, hello,
                        welcome -> new ChannelInboundHandlerAdapter(), 600_000, null);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        // Without the check the loop would go on for the whole 600 s deadline: get() would time out.
        ExecutionException ended = assertThrows(ExecutionException.class,
                () -> failOver.get(60, TimeUnit.SECONDS));
        IOException cause = assertInstanceOf(IOException.class, ended.getCause().getCause());
        assertTrue(cause.getMessage().contains("shutting down"), cause.getMessage());
    }

    /**
     * A server of this host is reached through its local socket, and the connection still names the server by the
     * TCP address it was opened to; the socket of a server on one loopback address is not another address's; where
     * its socket is a file left behind that nobody listens on, over TCP.
     */
    @Test
    void aServerOnThisHostIsReachedThroughItsLocalSocketOrElseOverTcp() throws Exception {
        Assumptions.assumeTrue(EventLoops.hasDomainSockets(), "this transport has no Unix domain sockets");
        EventLoopGroup group = EventLoops.create("local-socket-test", 1);
        try {
            Channel tcp = new ServerBootstrap().group(group).channel(EventLoops.serverChannel())
                    .childHandler(nothing()).bind("127.0.0.1", 0).sync().channel();
            InetSocketAddress server = (InetSocketAddress) tcp.localAddress();
            Channel local = LocalSockets.listen(group, nothing(), server);
            local.config().setAutoRead(true);
            Channel through = open(group, server);
            assertInstanceOf(DomainSocketAddress.class, through.remoteAddress());
            assertEquals(server, WireClient.serverAddress(through));
            assertEquals("127.0.0.1:" + server.getPort(), WireClient.hostPort(WireClient.serverAddress(through)));
            through.close().sync();
            // Another loopback address of the same port is another server (none here): not this one's socket.
            assertThrows(ExecutionException.class, () -> open(group, new InetSocketAddress("127.0.0.2",
                    server.getPort())));

            LocalSockets.close(local);
            Path leftBehind = LocalSockets.path(server.getAddress(), server.getPort());
            Files.createFile(leftBehind); // no socket: what a crashed server's files look like to connect
            try {
                Channel overTcp = open(group, server);
                assertEquals(server, overTcp.remoteAddress());
                overTcp.close().sync();
            } finally {
                Files.deleteIfExists(leftBehind);
            }
            tcp.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** A pipeline that adds nothing: what the server ends of this test need. */
    private static ChannelInitializer<Channel> nothing() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
            }
        };
    }

    /** The connection {@link WireClient#open} makes to {@code server}, once it is active. */
    private static Channel open(EventLoopGroup group, InetSocketAddress server) throws Exception {
        CompletableFuture<Channel> active = new CompletableFuture<>();
        WireClient.open(group, server, 5_000, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        active.complete(ctx.channel());
                    }
                });
            }
        }, active::completeExceptionally);
        return active.get(30, TimeUnit.SECONDS);
    }
}
