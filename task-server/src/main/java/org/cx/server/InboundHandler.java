package org.cx.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.cx.wire.Message;

/** The Netty side of one connection to a server: what the channel reports, passed to the server's logic. */
final class InboundHandler extends SimpleChannelInboundHandler<Message> {

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
        inbound.failed(cause);
    }
}
