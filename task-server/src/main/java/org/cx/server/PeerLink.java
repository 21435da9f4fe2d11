package org.cx.server;

import org.cx.wire.Message;

/**
 * A server's outbound link to another server: messages written in order once the other side has let it in, replies
 * coming back on it, lost once. {@link ServerLink} is the Netty one; the network opens links through an
 * {@link Opener}, so a simulation can pass its own.
 */
public interface PeerLink {

    /** Opens links to other servers. */
    interface Opener {
        /** A link to server {@code id} at {@code target} ({@code HOST:PORT}); -1 for a server not known by id yet. */
        PeerLink open(int id, String target, Owner owner);
    }

    /** The server a link belongs to. */
    interface Owner {
        /** What this server says first on the link. */
        Message.Hello hello();

        /** A message came back on the link. */
        void onMessage(Message message, PeerConnection from);

        /** A burst of messages on the link was read. */
        void endOfBurst();

        /** The link is lost: it could not connect, or it closed. Called once. */
        void lost(PeerLink link);
    }

    int id();

    /** Why the link could not be made or was refused; null if neither (yet). */
    String failure();

    boolean isClosed();

    /**
     * Whether the link was ever up (the other server let this one in). A link lost before that says only that the
     * other server could not be reached for a while (a cut times a connection attempt out), not that it is gone.
     */
    boolean wasUp();

    /** Queues {@code m}; it leaves, in order, at a {@link #flush} once the link is up. */
    void send(Message m);

    void flush();

    void close();
}
