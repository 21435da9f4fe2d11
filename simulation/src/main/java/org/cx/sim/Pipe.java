package org.cx.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.cx.server.PeerConnection;
import org.cx.wire.Message;
import org.cx.wire.PeerValues;

/**
 * One simulated TCP connection between a client node and a server node. Each end queues what it writes; a flush
 * sends the queue as one burst that arrives, after a delay, in order behind everything sent before it. A process
 * frozen while it writes the bursts of one event sends the connections it had not flushed yet when it resumes. A close
 * delivers what was already sent and then tells the other side; a reset (a crash, a lost connection) tells both
 * sides at once, after each has read a prefix of what was in flight towards it, chosen by the seed: nothing, some
 * messages of a burst cut short, or all. Large values go as the real transport sends them ({@link PeerValues}): a
 * value's chunks go ahead of the first message that refers to it, unless the other end holds it already.
 */
final class Pipe {

    /** What a connection's owner is told. */
    interface Receiver {
        void receive(Message message);

        /** A burst of messages was read. */
        void readComplete();

        /** The connection is gone (told once). */
        void closed();
    }

    final World world;
    final End client;
    final End server;
    /** Reset: whatever is still in flight is lost. */
    private boolean broken;

    Pipe(World world, Node clientNode, Node serverNode) {
        this.world = world;
        this.client = new End(clientNode, true); // the server end is a server, which may release values
        this.server = new End(serverNode, false); // until the peer turns out to be a server
        client.peer = server;
        server.peer = client;
    }

    /** One side of the connection. */
    final class End implements PeerConnection {
        final Node owner;
        End peer;
        Receiver receiver;
        private List<Message> unflushed = new ArrayList<>();
        /** Bursts this end sent that have not arrived yet, oldest first. */
        private final List<List<Message>> inFlight = new ArrayList<>();
        /** When the last burst this end sent arrives: later ones arrive after it. */
        private long lastArrival;
        /** Closed on this side: writes are dropped. */
        private boolean closed;
        /** The receiver has been told the connection is gone. */
        private boolean told;
        private Integer serverId;
        /** Which large values the other end holds, and those arriving from it; null if its owner has no store. */
        private final PeerValues values;

        End(Node owner, boolean takesReleases) {
            this.owner = owner;
            this.values = owner.values() == null ? null : new PeerValues(owner.values(), takesReleases);
            owner.ends.add(this);
        }

        @Override
        public void write(Message message) {
            if (closed) {
                return;
            }
            if (values == null) {
                unflushed.add(message);
                return;
            }
            try {
                values.write(message, unflushed::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e); // values held in memory: it cannot fail
            }
        }

        @Override
        public void takeValueReleases() {
            if (values != null) {
                values.takeReleases();
            }
        }

        @Override
        public void flush() {
            if (closed || unflushed.isEmpty()) {
                return;
            }
            if (owner.frozen()) {
                // Stopped halfway through writing the bursts of one event: the rest goes once it resumes.
                world.trace(owner.name + " is stopped before its burst to " + peer.owner.name + " leaves");
                owner.run(this::flush);
                return;
            }
            List<Message> burst = unflushed;
            unflushed = new ArrayList<>();
            world.sent(owner, burst);
            inFlight.add(burst);
            arriveAtPeer(() -> {
                inFlight.remove(0);
                deliver(burst);
            });
        }

        /** The peer reads {@code messages} as one burst. */
        private void deliver(List<Message> messages) {
            for (Message m : messages) {
                if (peer.told) {
                    return;
                }
                world.foldMessage(m);
                if (peer.values != null && peer.received(m)) {
                    continue;
                }
                peer.receiver.receive(m);
            }
            if (!peer.told) {
                peer.receiver.readComplete();
            }
        }

        /** At a reset, the peer reads the first messages in flight towards it, as many as the seed says. */
        private void deliverPrefixOfInFlight() {
            List<Message> all = new ArrayList<>();
            inFlight.forEach(all::addAll);
            inFlight.clear();
            if (all.isEmpty() || world.cutUntil(owner, peer.owner) != 0) {
                return; // a cut holds them: none gets across
            }
            int read = world.random.nextInt(all.size() + 1);
            if (read > 0) {
                List<Message> prefix = List.copyOf(all.subList(0, read));
                world.trace(peer.owner.name + " reads " + read + " of " + all.size() + " messages in flight from "
                        + owner.name + " before the reset");
                world.after(0, peer.owner, () -> deliver(prefix));
            }
        }

        /** Runs {@code delivery} on the peer after a delay, behind what this end sent before; held while cut off. */
        private void arriveAtPeer(Runnable delivery) {
            long at = Math.max(world.now() + world.delay(), lastArrival);
            lastArrival = at;
            world.at(at, peer.owner, new Runnable() {
                @Override
                public void run() {
                    if (broken) {
                        return;
                    }
                    long heal = world.cutUntil(owner, peer.owner);
                    if (heal != 0) {
                        world.at(heal, peer.owner, this); // retransmitted once the cut heals
                        return;
                    }
                    delivery.run();
                }
            });
        }

        @Override
        public void send(Message message, Runnable written) {
            send(message);
            world.after(0, owner, written);
        }

        @Override
        public void refuse(Message.Refused refusal) {
            send(refusal);
            close();
        }

        @Override
        public boolean isOpen() {
            return !closed;
        }

        /** Closes this side: what was sent still arrives, then the other side hears the close. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            flush();
            closed = true;
            unflushed.clear();
            owner.ends.remove(this);
            world.after(0, owner, this::tell);
            arriveAtPeer(() -> {
                peer.closed = true;
                peer.owner.ends.remove(peer);
                peer.tell();
            });
        }

        /** The connection is reset: nothing in flight arrives, and both sides hear it. */
        void reset() {
            if (broken) {
                return;
            }
            broken = true;
            for (End end : List.of(this, peer)) {
                end.deliverPrefixOfInFlight();
            }
            for (End end : List.of(this, peer)) {
                end.closed = true;
                end.owner.ends.remove(end);
                world.after(world.delay(), end.owner, end::tell);
            }
        }

        /** Whether {@code m} was a value's chunk or a release, taken in by this end's store. */
        private boolean received(Message m) {
            try {
                return values.received(m);
            } catch (IOException e) {
                throw new IllegalStateException(owner.name + " got a damaged value from " + peer.owner.name, e);
            }
        }

        private void tell() {
            if (!told) {
                told = true;
                if (values != null) {
                    values.closed();
                }
                receiver.closed();
            }
        }

        @Override
        public Integer serverId() {
            return serverId;
        }

        /** None: the simulation tests the protocols on plain connections, where peers are what they say. */
        @Override
        public org.cx.security.PeerIdentity identity() {
            return null;
        }

        @Override
        public void serverId(int id) {
            serverId = id;
        }

        @Override
        public String toString() {
            return peer.owner.name;
        }
    }
}
