package org.cx.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.cx.security.Tls;
import org.cx.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Netty side of one connection to a server: what the channel reports, passed to the server's logic. */
final class InboundHandler extends SimpleChannelInboundHandler<Message> {
    private static final Logger LOG = LoggerFactory.getLogger(InboundHandler.class);

    private final ServerCore.Inbound inbound;
    private final Duration helloTimeout;
    private boolean heard;

    /** @param helloTimeout how long the peer may take to send its first message (TLS handshake included) */
    InboundHandler(ServerCore.Inbound inbound, Duration helloTimeout) {
        this.inbound = inbound;
        this.helloTimeout = helloTimeout;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.executor().schedule(() -> {
            if (!heard && ctx.channel().isActive()) {
                LOG.warn("closing connection from {}: nothing said within {} s of connecting",
                        ctx.channel().remoteAddress(), helloTimeout.toSeconds());
                ctx.close();
            }
        }, helloTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        heard = true;
        inbound.receive(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        inbound.readComplete(); // the session flushes what the burst wrote
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inbound.closed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String refusedByTls = tlsRefusal(cause);
        if (refusedByTls != null) {
            // Nothing can be said to such a peer in CX messages: TLS never got that far. Say it here, and close.
            LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), refusedByTls);
            ctx.close();
            return;
        }
        inbound.failed(cause);
    }

    /**
     * A connection over the server's limits: it is told why once it can read (after its TLS handshake), and closed;
     * what it sends meanwhile is ignored.
     */
    static final class Refusing extends SimpleChannelInboundHandler<Message> {
        private final String reason;

        Refusing(String reason) {
            this.reason = reason;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            LOG.warn("refusing connection from {}: {}", ctx.channel().remoteAddress(), reason);
            ctx.writeAndFlush(new Message.Refused(reason)).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            // ignored: it is being closed
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Why TLS refused the peer, or null if {@code cause} is not a TLS refusal. */
    private static String tlsRefusal(Throwable cause) {
        return switch (Tls.failure(cause)) {
            case Tls.Failure.NotTls n ->
                    "a plain connection, and this server requires TLS (the peer needs a credential: docs/security.md)";
            case Tls.Failure.Handshake h -> "TLS handshake failed: " + h.reason();
            case null -> null;
        };
    }
}
