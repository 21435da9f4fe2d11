package org.cx.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real TLS handshakes on loopback between holders of credentials from one authority, and from strangers. */
class TlsTest {
    private static EventLoopGroup group;
    @TempDir
    static Path dir;
    private static Authority authority;

    @BeforeAll
    static void start() throws IOException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        authority = Authority.create(dir.resolve("ca"), "test");
    }

    @AfterAll
    static void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aCredentialSurvivesTheDiskAndNamesItsHolder() throws IOException {
        Credential issued = authority.issue(CredentialRole.PRODUCER, "volunteer-7", Duration.ofDays(1));
        issued.write(dir.resolve("p7"));
        Credential read = Credential.read(dir.resolve("p7"));
        assertEquals(new PeerIdentity("volunteer-7", CredentialRole.PRODUCER, issued.certificate().getSerialNumber(),
                issued.certificate().getNotAfter().toInstant()), read.identity());
        assertTrue(authority.issued().stream().anyMatch(i -> i.name().equals("volunteer-7") && !i.revoked()));
    }

    @Test
    void bothEndsLearnWhoTheOtherIs() throws Exception {
        Tls server = tls(CredentialRole.SERVER, "s1");
        Tls user = tls(CredentialRole.USER, "alice");
        assertEquals("user alice", handshake(server, user).toString());
    }

    @Test
    void aProducerCredentialCannotPoseAsAServer() throws Exception {
        Tls fake = tls(CredentialRole.PRODUCER, "rogue");
        Tls user = tls(CredentialRole.USER, "alice");
        Exception e = assertThrows(Exception.class, () -> handshake(fake, user));
        assertTrue(String.valueOf(e.getMessage()).contains("not a server one"), e.getMessage());
    }

    @Test
    void aStrangerAuthorityIsRefused() throws Exception {
        Authority other = Authority.create(dir.resolve("other-ca"), "other");
        Tls stranger = Tls.of(other.issue(CredentialRole.SERVER, "s9", Duration.ofDays(1)), RevocationList.none());
        Tls user = tls(CredentialRole.USER, "alice");
        Exception e = assertThrows(Exception.class, () -> handshake(stranger, user));
        assertTrue(String.valueOf(e.getMessage()).contains("not issued by this network's authority"), e.getMessage());
    }

    @Test
    void aRevokedCredentialIsRefusedOnItsNextConnection() throws Exception {
        Tls server = Tls.of(authority.issue(CredentialRole.SERVER, "s2", Duration.ofDays(1)),
                RevocationList.watching(authority.revocationList(), authority.certificate()));
        Credential mallory = authority.issue(CredentialRole.PRODUCER, "mallory", Duration.ofDays(1));
        Tls producer = Tls.of(mallory, RevocationList.none());
        assertEquals("producer mallory", handshake(server, producer).toString());
        Files.setLastModifiedTime(authority.revocationList(),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 10_000));
        authority.revoke(mallory.certificate().getSerialNumber());
        assertThrows(Exception.class, () -> handshake(server, producer));
        assertTrue(authority.issued().stream().anyMatch(i -> i.name().equals("mallory") && i.revoked()));
        assertFalse(authority.issued().stream().anyMatch(i -> i.name().equals("s2") && i.revoked()));
    }

    private static Tls tls(CredentialRole role, String name) throws IOException {
        return Tls.of(authority.issue(role, name, Duration.ofDays(1)), RevocationList.none());
    }

    /** Connects {@code client} to {@code server}; returns whom the server saw, or throws why a side refused. */
    private static PeerIdentity handshake(Tls server, Tls client) throws Exception {
        CompletableFuture<PeerIdentity> seen = new CompletableFuture<>();
        Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(server.accepting(ch.alloc()), new Outcome(seen));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        CompletableFuture<PeerIdentity> reached = new CompletableFuture<>();
        try {
            new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(client.connecting(ch.alloc()), new Outcome(reached));
                        }
                    }).connect(listener.localAddress()).sync();
            assertEquals(CredentialRole.SERVER, reached.get(10, TimeUnit.SECONDS).role());
            return seen.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(rootMessage(e), e);
        } finally {
            listener.close().sync();
        }
    }

    private static String rootMessage(Throwable e) {
        String message = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            message = t.getMessage();
        }
        return message;
    }

    private static final class Outcome extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<PeerIdentity> outcome;

        Outcome(CompletableFuture<PeerIdentity> outcome) {
            this.outcome = outcome;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof SslHandshakeCompletionEvent done) {
                if (done.isSuccess()) {
                    outcome.complete(Tls.peer(ctx.channel()));
                } else {
                    outcome.completeExceptionally(done.cause());
                }
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            outcome.completeExceptionally(new IOException("closed before the handshake ended"));
        }
    }
}
