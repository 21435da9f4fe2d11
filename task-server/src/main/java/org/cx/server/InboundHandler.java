package org.cx.server;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.cx.wire.Message;

/** The Netty side of one connection to a server: what the channel reports, passed to the server's logic. */
final class InboundHandler extends SimpleChannelInboundHandler<Message> {
    private static final Logger LOG = LoggerFactory.getLogger(InboundHandler.class);

    private final ServerCore.Inbound inbound;

    InboundHandler(ServerCore.Inbound inbound) {
        this.inbound = inbound;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
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

    /** Why TLS refused the peer, or null if {@code cause} is not a TLS refusal. */
    private static String tlsRefusal(Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof NotSslRecordException) {
            return "a plain connection, and this server requires TLS (the peer needs a credential: docs/security.md)";
        }
        if (c instanceof SSLException) {
            Throwable root = c;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return "TLS handshake failed: " + root.getMessage();
        }
        return null;
    }
}
