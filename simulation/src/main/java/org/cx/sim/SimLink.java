package org.cx.sim;

import java.util.ArrayList;
import java.util.List;
import org.cx.server.PeerLink;
import org.cx.wire.Message;

/**
 * A server's link to another server in the simulation, as {@code ServerLink} is on Netty: messages queue until the
 * other side has welcomed it, then go in order; replies come back to the owner; lost once.
 */
final class SimLink implements PeerLink, Pipe.Receiver {
    private final SimServer from;
    private final int id;
    private final PeerLink.Owner owner;
    private final List<Message> queued = new ArrayList<>();
    private Pipe.End end;
    private boolean ready;
    private boolean closed;
    private String failure;

    SimLink(SimServer from, int id, String target, PeerLink.Owner owner) {
        this.from = from;
        this.id = id;
        this.owner = owner;
        from.world.connect(from, target, this::connected, this);
    }

    private void connected(Pipe.End connection) {
        if (connection == null) {
            failure = "cannot connect";
            lost();
            return;
        }
        end = connection;
        if (closed) {
            end.close();
            return;
        }
        end.send(owner.hello());
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
            end.write(m);
        } else {
            queued.add(m);
        }
    }

    @Override
    public void flush() {
        if (ready) {
            end.flush();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (end != null) {
            end.close();
        }
    }

    @Override
    public void receive(Message msg) {
        if (!ready && msg instanceof Message.Welcome) {
            ready = true;
            queued.forEach(end::write);
            queued.clear();
            end.flush();
            return;
        }
        if (msg instanceof Message.Refused r) {
            failure = "refused: " + r.reason();
            return;
        }
        owner.onMessage(msg, end);
    }

    @Override
    public void readComplete() {
        owner.endOfBurst();
    }

    @Override
    public void closed() {
        lost();
    }

    private void lost() {
        if (closed) {
            return;
        }
        closed = true;
        owner.lost(this);
    }

    @Override
    public String toString() {
        return from.name + "->" + id;
    }
}
