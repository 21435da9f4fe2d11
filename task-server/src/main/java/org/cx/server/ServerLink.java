package org.cx.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.WireClient;
import org.cx.wire.WirePipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's outbound link to another server over Netty ({@link PeerLink}): messages queue while it connects and are
 * written in order once the handshake is done; replies (acknowledgements) come back on it. A link that cannot
 * connect, is refused or closes is lost, once: its owner decides what that means (a repair, a snapshot, asking
 * again).
 */
final class ServerLink extends SimpleChannelInboundHandler<Message> implements PeerLink {
    private static final Logger LOG = LoggerFactory.getLogger(ServerLink.class);

    private final int id;
    private final String target;
    private final PeerLink.Owner owner;
    private final List<Message> queued = new ArrayList<>();
    private Channel channel;
    /** The same channel as the network's logic sees it, for the replies that come back on it. */
    private PeerConnection connection;
    private boolean ready;
    private boolean closed;
    /** Why the connection could not be made or was refused, if it was. */
    private String failure;

    /** Opens links over Netty on {@code loop}. */
    static PeerLink.Opener opener(EventLoopGroup loop, int connectTimeoutMillis, int maxFrameBytes) {
        return (id, target, owner) -> new ServerLink(id, target, loop, connectTimeoutMillis, maxFrameBytes, owner);
    }

    /** Connects to server {@code id} at {@code target} ({@code HOST:PORT}); -1 for a server not known by id yet. */
    ServerLink(int id, String target, EventLoopGroup loop, int connectTimeoutMillis, int maxFrameBytes,
               PeerLink.Owner owner) {
        this.id = id;
        this.target = target;
        this.owner = owner;
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(EventLoops.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        WirePipeline.install(ch.pipeline(), maxFrameBytes);
                        ch.pipeline().addLast("link", ServerLink.this);
                    }
                });
        bootstrap.connect(WireClient.parseAddress(target)).addListener(f -> {
            if (!f.isSuccess()) {
                LOG.debug("cannot reach server {} at {}: {}", id, target, f.cause().toString());
                failure = "cannot connect: " + WireClient.reason(f.cause());
                lost();
            }
        });
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public String failure() {
        return failure;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void send(Message m) {
        if (ready) {
            channel.write(m);
        } else {
            queued.add(m);
        }
    }

    @Override
    public void flush() {
        if (ready) {
            channel.flush();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        connection = PeerConnection.of(channel);
        ctx.writeAndFlush(owner.hello());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
        if (!ready && msg instanceof Message.Welcome) {
            ready = true;
            for (Message m : queued) {
                channel.write(m);
            }
            queued.clear();
            channel.flush();
            return;
        }
        if (msg instanceof Message.Refused r) {
            LOG.warn("server {} at {} refused this server: {}", id, target, r.reason());
            failure = "refused: " + r.reason();
            return;
        }
        owner.onMessage(msg, connection);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        owner.endOfBurst();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        lost();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("link to server {} failed: {}", id, cause.toString());
        ctx.close();
    }

    private void lost() {
        if (closed) {
            return;
        }
        closed = true;
        owner.lost(this);
    }
}
