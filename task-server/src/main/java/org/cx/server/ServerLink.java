package org.cx.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandler;
import org.cx.security.Tls;
import org.cx.wire.Message;
import org.cx.wire.WireClient;
import org.cx.wire.WirePipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's outbound link to another server over Netty ({@link PeerLink}, with the queueing and loss rules of
 * {@link QueuedPeerLink}): messages queue while it connects and are written in order once the handshake is done
 * (its hello goes once the TLS handshake has ended); replies (acknowledgements) come back on it. A link that cannot
 * connect, is refused or closes is lost, once: its owner decides what that means (a repair, a snapshot, asking
 * again).
 */
final class ServerLink extends QueuedPeerLink {
    private static final Logger LOG = LoggerFactory.getLogger(ServerLink.class);

    private final String target;
    private Channel channel;
    /** The same channel as the network's logic sees it, for the replies that come back on it. */
    private PeerConnection connection;

    /** Opens links over Netty on {@code loop}. */
    static PeerLink.Opener opener(EventLoopGroup loop, int connectTimeoutMillis, int maxFrameBytes, Tls tls,
                                  org.cx.wire.ValueStore values) {
        return (id, target, owner) -> new ServerLink(id, target, loop, connectTimeoutMillis, maxFrameBytes, tls, values,
                owner);
    }

    /** Connects to server {@code id} at {@code target} ({@code HOST:PORT}); -1 for a server not known by id yet. */
    ServerLink(int id, String target, EventLoopGroup loop, int connectTimeoutMillis, int maxFrameBytes, Tls tls,
               org.cx.wire.ValueStore values, PeerLink.Owner owner) {
        super(id, owner);
        this.target = target;
        WireClient.open(loop, WireClient.parseAddress(target), connectTimeoutMillis, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                WirePipeline.install(ch, maxFrameBytes, tls, false, null, values);
                ch.pipeline().addLast("link", new Handler());
            }
        }, cause -> {
            LOG.debug("cannot reach server {} at {}: {}", id, target, cause.toString());
            lost("cannot connect: " + WireClient.reason(cause));
        });
    }

    @Override
    protected void write(Message m) {
        channel.write(m);
    }

    @Override
    protected void flushConnection() {
        channel.flush();
    }

    @Override
    protected void closeConnection() {
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    protected PeerConnection connection() {
        return connection;
    }

    /** What the channel reports. */
    private final class Handler extends SimpleChannelInboundHandler<Message> {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            if (isClosed()) {
                ctx.close(); // closed while it was connecting: nothing may be written on it
                return;
            }
            connection = PeerConnection.of(channel);
            SslHandler tls = ctx.pipeline().get(SslHandler.class);
            if (tls == null) {
                connected();
                return;
            }
            // Nothing is written before the handshake ends: a link closed during it leaves no message waiting
            // inside the TLS handler. A failed handshake closes the channel, and the link is lost.
            tls.handshakeFuture().addListener(f -> {
                if (f.isSuccess() && !isClosed()) {
                    connected();
                }
            });
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            if (msg instanceof Message.Refused r) {
                LOG.warn("server {} at {} refused this server: {}", id(), target, r.reason());
            }
            received(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            burstRead();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            lost(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("link to server {} failed: {}", id(), cause.toString());
            ctx.close();
        }
    }
}
