package org.cx.server;

import java.util.ArrayList;
import java.util.List;
import org.cx.wire.Message;

/**
 * What every {@link PeerLink} does whatever carries it: messages queue until the other server has let this one in
 * ({@code Welcome}), then go in order; a refusal is kept as the reason; replies go to the owner; the link is lost
 * once. Subclasses say how to write, flush and close ({@link ServerLink} on Netty, a simulation in memory) and report
 * what their connection does.
 */
public abstract class QueuedPeerLink implements PeerLink {
    private final int id;
    private final PeerLink.Owner owner;
    private final List<Message> queued = new ArrayList<>();
    private boolean ready;
    private boolean closed;
    /** Why the connection could not be made or was refused, if it was. */
    private String failure;

    protected QueuedPeerLink(int id, PeerLink.Owner owner) {
        this.id = id;
        this.owner = owner;
    }

    /** Writes {@code m} on the connection, which is up. */
    protected abstract void write(Message m);

    /** Flushes the connection, which is up. */
    protected abstract void flushConnection();

    /** Closes the connection, if there is one yet. */
    protected abstract void closeConnection();

    /** The connection as the owner sees it, for the replies that come back on it. */
    protected abstract PeerConnection connection();

    @Override
    public final int id() {
        return id;
    }

    @Override
    public final String failure() {
        return failure;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final boolean wasUp() {
        return ready;
    }

    @Override
    public final void send(Message m) {
        if (ready) {
            write(m);
        } else {
            queued.add(m);
        }
    }

    @Override
    public final void flush() {
        if (ready) {
            flushConnection();
        }
    }

    @Override
    public final void close() {
        closed = true;
        closeConnection();
    }

    /** The connection is up: say hello. */
    protected final void connected() {
        write(owner.hello());
        flushConnection();
    }

    /** A message came on the connection. */
    protected final void received(Message msg) {
        if (!ready && msg instanceof Message.Welcome) {
            ready = true;
            queued.forEach(this::write);
            queued.clear();
            flushConnection();
            return;
        }
        if (msg instanceof Message.Refused r) {
            failure = "refused: " + r.reason();
            return;
        }
        owner.onMessage(msg, connection());
    }

    /** A burst of messages was read. */
    protected final void burstRead() {
        owner.endOfBurst();
    }

    /** The connection could not be made ({@code why}), or closed (null): the link is lost, once. */
    protected final void lost(String why) {
        if (why != null) {
            failure = why;
        }
        if (closed) {
            return;
        }
        closed = true;
        owner.lost(this);
    }
}
