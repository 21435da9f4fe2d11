package org.cx.server;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.List;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;
import org.cx.wire.Message;
import org.cx.wire.ValueLink;
import org.cx.wire.ValueRef;

/**
 * One connection as the server's logic sees it: messages out, in order, and whether it is still open. The server
 * answers on it, paces large transfers by it and keeps it to acknowledge on later; it never needs to know what
 * carries it. {@link #of} is the Netty one; a simulation passes its own.
 */
public interface PeerConnection {

    /** Queues {@code message}; it leaves at the next {@link #flush}. */
    void write(Message message);

    void flush();

    /** Writes and flushes {@code message}. */
    default void send(Message message) {
        write(message);
        flush();
    }

    /**
     * The peer is a server: it may say which large values go ({@link Message.ValuesReleased}), which nobody else
     * may on a connection this server accepted.
     */
    default void takeValueReleases() {
    }

    /**
     * Passes the chunks of large value {@code ref}, about to arrive on this connection, on to {@code readers} as they
     * come (see {@link ValueLink#relay}); a transport that cannot does nothing, and the value goes to
     * them whole when a message refers to it.
     */
    default void relay(ValueRef ref, List<PeerConnection> readers) {
    }

    /** Sends {@code message} and runs {@code written} once it has left (to pace a large transfer); never if it fails. */
    void send(Message message, Runnable written);

    boolean isOpen();

    void close();

    /** Sends {@code refusal}, reads nothing more, and closes once it has left. */
    void refuse(Message.Refused refusal);

    /**
     * Who the peer is, as its credential says (authenticated by TLS before any message was read); null on a plain
     * connection, whose peer is whoever it says it is.
     */
    PeerIdentity identity();

    /** The id a server gave in its {@code Hello}, on a connection another server opened; null on any other. */
    Integer serverId();

    /** Marks this as the connection server {@code id} opened to this one. */
    void serverId(int id);

    /** The connection over Netty channel {@code channel}. */
    static PeerConnection of(Channel channel) {
        return NettyConnection.on(channel);
    }

    /** A Netty channel as a {@link PeerConnection}. */
    final class NettyConnection implements PeerConnection {
        static final AttributeKey<NettyConnection> KEY = AttributeKey.valueOf("cx.peerConnection");

        private final Channel channel;
        private volatile Integer serverId;

        private NettyConnection(Channel channel) {
            this.channel = channel;
        }

        /** The connection over {@code channel}: one per channel, kept on the channel. Its event loop only. */
        static NettyConnection on(Channel channel) {
            NettyConnection existing = channel.attr(KEY).get();
            if (existing == null) {
                existing = new NettyConnection(channel);
                channel.attr(KEY).set(existing);
            }
            return existing;
        }

        @Override
        public void serverId(int id) {
            serverId = id;
        }

        @Override
        public void write(Message message) {
            channel.write(message);
        }

        @Override
        public void takeValueReleases() {
            ValueLink values = channel.pipeline().get(ValueLink.class);
            if (values != null) {
                values.takeReleases();
            }
        }

        @Override
        public void flush() {
            channel.flush();
        }

        @Override
        public void relay(ValueRef ref, List<PeerConnection> readers) {
            ValueLink from = channel.pipeline().get(ValueLink.class);
            List<ValueLink> to = new ArrayList<>(readers.size());
            for (PeerConnection reader : readers) {
                if (reader instanceof NettyConnection n) {
                    ValueLink link = n.channel.pipeline().get(ValueLink.class);
                    if (link != null) {
                        to.add(link);
                    }
                }
            }
            if (from != null && !to.isEmpty()) {
                from.relay(ref, to);
            }
        }

        @Override
        public void send(Message message) {
            channel.writeAndFlush(message);
        }

        @Override
        public void send(Message message, Runnable written) {
            channel.writeAndFlush(message).addListener(f -> {
                if (f.isSuccess()) {
                    written.run();
                }
            });
        }

        @Override
        public void refuse(Message.Refused refusal) {
            channel.config().setAutoRead(false);
            channel.writeAndFlush(refusal).addListener(f -> channel.close());
        }

        @Override
        public boolean isOpen() {
            return channel.isActive();
        }

        @Override
        public void close() {
            channel.close();
        }

        @Override
        public Integer serverId() {
            return serverId;
        }

        @Override
        public PeerIdentity identity() {
            return Tls.peer(channel);
        }

        @Override
        public String toString() {
            return String.valueOf(channel.remoteAddress());
        }
    }
}
