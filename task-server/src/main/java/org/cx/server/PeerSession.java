package org.cx.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection after its handshake: one subclass per role, each taking the messages that role may send and refusing
 * the rest with a reason (that connection only is closed). Every message is one command on the event loop; every read
 * burst ends with the server's {@link DutyCycle#endOfBurst}.
 */
abstract class PeerSession extends SimpleChannelInboundHandler<Message> {
    private static final Logger LOG = LoggerFactory.getLogger(PeerSession.class);

    final TaskServerNode node;
    private final long peerId;
    private final String peerName;
    private final String jmx;
    private final PeerConnection connection;
    private boolean closing;

    PeerSession(TaskServerNode node, Message.Hello hello, Channel channel) {
        this.node = node;
        this.peerId = node.nextPeerId();
        this.peerName = hello.name() + "@" + channel.remoteAddress();
        this.jmx = hello.jmx();
        this.connection = PeerConnection.of(channel);
    }

    /** The session of the role {@code hello} names. */
    static PeerSession of(TaskServerNode node, Message.Hello hello, Channel channel) {
        return switch (hello.role()) {
            case PRODUCER -> new ProducerSession(node, hello, channel);
            case CONSUMER -> new ConsumerSession(node, hello, channel);
            case SERVER -> new ServerSession(node, hello, channel);
            case OBSERVER -> new ObserverSession(node, hello, channel);
        };
    }

    abstract Role role();

    /** Whether this peer is told the server's mirror group (to fail over to). */
    boolean tellsMirrors() {
        return role() == Role.PRODUCER || role() == Role.CONSUMER;
    }

    /** Takes one message of this role; false if the role may not send it. */
    abstract boolean handle(ChannelHandlerContext ctx, Message msg);

    /** The peer left: what it held is released. */
    void left() {
    }

    public long peerId() {
        return peerId;
    }

    String jmx() {
        return jmx;
    }

    PeerConnection connection() {
        return connection;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (closing) {
            return;
        }
        node.scheduler().tick(node.cycle().now());
        if (!handle(ctx, msg)) {
            refuse(ctx, msg.getClass().getSimpleName() + " is not a message a " + role().name().toLowerCase()
                    + " may send");
        }
    }

    /** Refuses this peer: says why, counts it, and closes this connection only. */
    void refuse(ChannelHandlerContext ctx, String reason) {
        closing = true;
        refuse(node, ctx, peerName, reason);
    }

    static void refuse(TaskServerNode node, ChannelHandlerContext ctx, String who, String reason) {
        node.refused();
        LOG.warn("closing connection from {}: {}", who, reason);
        ctx.writeAndFlush(new Message.Refused(reason)).addListener(f -> ctx.close());
        ctx.channel().config().setAutoRead(false);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
        node.cycle().endOfBurst();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        node.detached(this);
        left();
        node.cycle().endOfBurst();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        if (cause instanceof java.io.IOException) {
            LOG.debug("connection from {} failed: {}", peerName, reason);
            ctx.close();
            return;
        }
        refuse(ctx, "bad input: " + reason);
    }

    /** A producer: asks for work, reports completions, answers revokes, fetches code. */
    static final class ProducerSession extends PeerSession {
        final ProducerState producer;

        ProducerSession(TaskServerNode node, Message.Hello hello, Channel channel) {
            super(node, hello, channel);
            this.producer = node.scheduler().addProducer(peerId(), hello.name(), Math.max(1, hello.workers()));
        }

        @Override
        Role role() {
            return Role.PRODUCER;
        }

        @Override
        boolean handle(ChannelHandlerContext ctx, Message msg) {
            Scheduler scheduler = node.scheduler();
            switch (msg) {
                case Message.Request r -> {
                    if (r.idleWorkers() < 0) {
                        refuse(ctx, "negative idle count in Request");
                    } else {
                        scheduler.request(producer, r.credit(), r.idleWorkers());
                    }
                }
                case Message.Completed c -> {
                    for (var completion : c.completions()) {
                        scheduler.completed(producer, completion);
                    }
                }
                case Message.Released r -> scheduler.released(producer, r.ids());
                case Message.TaskFailed f -> scheduler.taskFailed(producer, f.id(), f.reason(), node.cycle().now());
                case Message.FetchBundle f -> node.code().fetch(f.bundle(), connection());
                default -> {
                    return false;
                }
            }
            return true;
        }

        @Override
        void left() {
            node.scheduler().removeProducer(producer);
            LOG.debug("producer {} left; {} tasks released", peerId(), producer.heldCount());
        }
    }

    /** A consumer: submits computations (uploading their code first if asked), collects results. */
    static final class ConsumerSession extends PeerSession implements ConsumerHandle {

        ConsumerSession(TaskServerNode node, Message.Hello hello, Channel channel) {
            super(node, hello, channel);
        }

        @Override
        Role role() {
            return Role.CONSUMER;
        }

        @Override
        boolean handle(ChannelHandlerContext ctx, Message msg) {
            switch (msg) {
                case Message.Submit s -> submit(ctx, s);
                case Message.BundleChunk c -> node.code().upload(c);
                case Message.Collect c -> {
                    if (!node.scheduler().collect(this, c.computation())) {
                        ctx.write(new Message.Failed(c.computation(), "",
                                "no computation " + Long.toHexString(c.computation())
                                        + " on this server: unknown, already collected, or its result expired"));
                    }
                }
                case Message.Collected c -> node.scheduler().collected(c.computation());
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** A submission runs once its code bundle is here; until then the consumer is asked to upload it. */
        private void submit(ChannelHandlerContext ctx, Message.Submit s) {
            CodeService code = node.code();
            if (!code.has(s.bundle())) {
                String rejection = code.takeRejection(s.bundle());
                ctx.write(rejection != null ? new Message.SubmitRefused(s.requestId(), rejection)
                        : new Message.NeedBundle(s.requestId(), s.bundle()));
                return;
            }
            long id = node.scheduler().submit(this, s.root(), s.bundle(), node.cycle().now());
            node.accepted(this, s.requestId(), id);
            LOG.debug("consumer {} submitted computation {}", peerId(), Long.toHexString(id));
        }

        @Override
        void left() {
            node.scheduler().consumerGone(this);
        }
    }

    /** Another server of the network, on the connection it opened to this one. */
    static final class ServerSession extends PeerSession {

        ServerSession(TaskServerNode node, Message.Hello hello, Channel channel) {
            super(node, hello, channel);
            PeerConnection.NettyConnection.on(channel).serverId(hello.workers()); // a server sends its id there
        }

        @Override
        Role role() {
            return Role.SERVER;
        }

        @Override
        boolean handle(ChannelHandlerContext ctx, Message msg) {
            node.networkInternals().onMessage(msg, connection());
            return true;
        }
    }

    /** A tool that asks the network for its status ({@code cx network status}). */
    static final class ObserverSession extends PeerSession {

        ObserverSession(TaskServerNode node, Message.Hello hello, Channel channel) {
            super(node, hello, channel);
        }

        @Override
        Role role() {
            return Role.OBSERVER;
        }

        @Override
        boolean handle(ChannelHandlerContext ctx, Message msg) {
            if (msg instanceof Message.NetworkQuery q) {
                node.networkInternals().onMessage(q, connection());
                return true;
            }
            return false;
        }
    }
}
