package org.cx.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.cx.wire.Message;
import org.cx.wire.WireConfig;

/**
 * The first handler of every connection to a server: it reads the peer's {@code Hello}, checks it, and replaces
 * itself with the session handler of the peer's role ({@link PeerSession}), which then handles every other message.
 * Anything but a {@code Hello} of this protocol version is refused with a reason, and that connection only is closed.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>The peer sends {@code Hello(version, role, name, workers, jmx)} as its first frame.</li>
 *   <li>A wrong version or another first message: {@code Refused(reason)}, counted, and the connection closes.</li>
 *   <li>Otherwise the peer gets an id, this handler is replaced by the session of its role (a producer is added to
 *       the scheduler with its workers; a server's id is kept on the connection), and the server answers
 *       {@code Welcome(version, peerId, serverName, serverId, mirrors)}: producers and consumers learn where to go
 *       if this server fails.</li>
 * </ol>
 */
final class Handshake extends SimpleChannelInboundHandler<Message> {

    private final TaskServerNode node;
    private boolean refused;

    Handshake(TaskServerNode node) {
        this.node = node;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (refused) {
            return;
        }
        if (!(msg instanceof Message.Hello hello)) {
            refuse(ctx, "expected Hello as the first message, got " + msg.getClass().getSimpleName());
            return;
        }
        if (hello.version() != WireConfig.PROTOCOL_VERSION) {
            refuse(ctx, "protocol version " + hello.version() + " is not supported; this server speaks version "
                    + WireConfig.PROTOCOL_VERSION + " (upgrade the older side)");
            return;
        }
        PeerSession session = PeerSession.of(node, hello, ctx.channel());
        ctx.pipeline().replace(this, "session", session);
        node.attached(session);
        session.connection().send(new Message.Welcome(WireConfig.PROTOCOL_VERSION, session.peerId(), node.config().name(),
                node.networkInternals().self(), session.tellsMirrors()
                        ? node.networkInternals().mirrorAddresses() : new String[0]));
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        refused = true;
        PeerSession.refuse(node, ctx, String.valueOf(ctx.channel().remoteAddress()), reason);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException) {
            ctx.close();
            return;
        }
        refuse(ctx, "bad input: " + (cause.getMessage() == null ? cause.toString() : cause.getMessage()));
    }
}
