package org.cx.producer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.cx.wire.Message;
import org.cx.wire.WireClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer's link to its server over Netty: it hands each message to the {@link Producer}, lets it send what a
 * burst of messages produced, and tells it when the link is lost. Event loop only.
 */
final class ProducerLink extends SimpleChannelInboundHandler<Message> {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerLink.class);

    private final Producer producer;

    ProducerLink(Producer producer) {
        this.producer = producer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        producer.linked(ctx.channel());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        producer.onMessage(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        producer.drain(); // also sends any completion whose worker found a task that had just arrived
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        producer.lost(WireClient.hostPort(WireClient.serverAddress(ctx.channel())));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String reason = cause.getMessage() == null ? cause.toString() : WireClient.reason(cause);
        LOG.warn("producer {}: closing connection to {}: {}", producer.config().name(),
                WireClient.hostPort(WireClient.serverAddress(ctx.channel())), reason);
        ctx.close();
    }
}
