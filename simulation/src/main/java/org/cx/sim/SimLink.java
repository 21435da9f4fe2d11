package org.cx.sim;

import org.cx.server.PeerConnection;
import org.cx.server.PeerLink;
import org.cx.server.QueuedPeerLink;
import org.cx.wire.Message;

/** A server's link to another server in the simulation, over a {@link Pipe}, as {@code ServerLink} is on Netty. */
final class SimLink extends QueuedPeerLink implements Pipe.Receiver {
    private final SimServer from;
    private Pipe.End end;

    SimLink(SimServer from, int id, String target, PeerLink.Owner owner) {
        super(id, owner);
        this.from = from;
        from.world.connect(from, target, this::connectedOn, this);
    }

    private void connectedOn(Pipe.End connection) {
        if (connection == null) {
            lost("cannot connect");
            return;
        }
        end = connection;
        if (isClosed()) {
            end.close();
            return;
        }
        connected();
    }

    @Override
    protected void write(Message m) {
        end.write(m);
    }

    @Override
    protected void flushConnection() {
        end.flush();
    }

    @Override
    protected void closeConnection() {
        if (end != null) {
            end.close();
        }
    }

    @Override
    protected PeerConnection connection() {
        return end;
    }

    @Override
    public void receive(Message msg) {
        received(msg);
    }

    @Override
    public void readComplete() {
        burstRead();
    }

    @Override
    public void closed() {
        lost(null);
    }

    @Override
    public String toString() {
        return from.name + "->" + id();
    }
}
