package org.cx.server;

import java.util.ArrayList;
import java.util.List;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.ValueRef;

/**
 * Exactly-once messages between servers, carried out: a payload (a diffused transfer, a value, a failure) is
 * numbered on its channel, recorded for the mirrors and sent once the record is committed; a receiver applies each
 * number once, in order, and acknowledges after its own commit; what is unacknowledged is sent again after every
 * repair, to whichever server the destination's tasks live on now. The numbering is {@link ExactlyOnceChannels}'s.
 */
final class Routing {
    private final ServerNetwork network;
    private final Mirroring mirroring;
    private final Scheduler scheduler;
    private final ServerNetwork.Host host;
    private final DutyCycle cycle;
    private final ExactlyOnceChannels channels = new ExactlyOnceChannels();

    Routing(ServerNetwork network, Mirroring mirroring, Scheduler scheduler, ServerNetwork.Host host,
            DutyCycle cycle) {
        this.network = network;
        this.mirroring = mirroring;
        this.scheduler = scheduler;
        this.host = host;
        this.cycle = cycle;
    }

    /** The channels' state, for a new mirror. */
    void snapshot(List<MirrorOp> ops) {
        channels.snapshot(ops);
    }

    /** This server took over a failed server's channels from its copy. */
    void adopt(Replica copy) {
        channels.adopt(copy.outgoing(), copy.received());
    }

    /** Sends {@code payload} to server {@code to}, exactly once: recorded, mirrored, then transmitted. */
    void route(int to, RoutedPayload payload) {
        int self = network.self();
        long seq = channels.send(self, to, payload);
        if (host.trails()) {
            trail(payload, "sent:" + self + ">" + to + "." + seq + "@" + network.resolve(to));
        }
        if (mirroring.active()) {
            mirroring.record(new MirrorOp.Send(self, to, seq, payload));
        }
        if (payload instanceof RoutedPayload.Transfer t) {
            host.transferred(t, to, false);
        }
        mirroring.afterCommit(() -> {
            if (host.trails()) {
                MirrorCommit commit = mirroring.commit();
                trail(payload, "committed:" + self + ">" + to + "." + seq + ":journal" + commit.journalSeq()
                        + ":acked" + commit.acknowledgements());
            }
            if (payload instanceof RoutedPayload.Transfer t) {
                host.transferred(t, to, true);
            }
            deliver(new Message.Routed(self, to, seq, payload));
        });
    }

    /**
     * Sends {@code m} to the server its destination's tasks live on now, which after a take-over may be this one:
     * the heir of a failed server re-sends what that server had not had acknowledged, some of it to itself.
     * Delivered here, it waits for the current command to finish.
     */
    private void deliver(Message.Routed m) {
        Message.Routed stamped = new Message.Routed(m.from(), m.to(), m.seq(), m.payload(), network.epoch());
        deliver(m.to(), stamped, () -> onRouted(stamped));
    }

    private void deliver(Message.RoutedAck ack) {
        deliver(ack.from(), ack, () -> onRoutedAck(ack));
    }

    private void deliver(int destination, Message m, Runnable here) {
        int at = network.resolve(destination);
        if (at != network.self()) {
            network.send(at, m);
            return;
        }
        cycle.soon(() -> {
            if (!network.evictedHere()) {
                here.run();
            }
        });
    }

    /** A routed payload from another server (or from this one, as the heir of its sender). */
    void onRouted(Message.Routed m) {
        if (m.epoch() > network.epoch()) {
            // The sender knows a newer topology: it may make this server the heir of the task the message is for,
            // and a value for a task not taken over yet would be dropped as late. Unacknowledged, it comes again.
            return;
        }
        int at = network.resolve(m.to());
        if (at != network.self()) {
            network.send(at, m); // this server's view was newer than the sender's: pass it on
            return;
        }
        if (host.trails()) {
            trail(m.payload(), "received:" + m.from() + ">" + m.to() + "." + m.seq() + ":after"
                    + channels.mark(m.from(), m.to()));
        }
        ExactlyOnceChannels.Receipt receipt = channels.receive(m.from(), m.to(), m.seq());
        if (receipt == ExactlyOnceChannels.Receipt.NEXT) {
            if (mirroring.active()) {
                mirroring.record(new MirrorOp.Received(m.from(), m.to(), m.seq()));
            }
            switch (m.payload()) {
                case RoutedPayload.Transfer t -> scheduler.diffusion().accept(t, m.from());
                case RoutedPayload.Value v -> scheduler.routedValue(v);
                case RoutedPayload.Failure f -> scheduler.routedFailure(f.computation(), f.taskId(), f.reason());
            }
        } else if (receipt == ExactlyOnceChannels.Receipt.GAP) {
            return; // an earlier one was lost on a broken link; the sender sends it again
        }
        long upTo = channels.mark(m.from(), m.to());
        mirroring.afterCommit(() -> deliver(new Message.RoutedAck(m.from(), m.to(), upTo)));
    }

    /** Tells the host's audit trail where the tasks of a transfer go and come from. */
    private void trail(RoutedPayload payload, String event) {
        if (payload instanceof RoutedPayload.Transfer transfer) {
            for (ReadyTask task : transfer.tasks()) {
                host.trail(task.task().id(), event);
            }
        } else if (payload instanceof RoutedPayload.Value value) {
            host.trail(value.value().to().target(), "value:" + event);
        }
    }

    void onRoutedAck(Message.RoutedAck ack) {
        if (network.resolve(ack.from()) != network.self()) {
            return;
        }
        List<RoutedPayload> acknowledged = channels.acknowledge(ack.from(), ack.to(), ack.seq());
        if (acknowledged.isEmpty()) {
            return;
        }
        if (mirroring.active()) {
            mirroring.record(new MirrorOp.Acked(ack.from(), ack.to(), ack.seq()));
        }
        if (network.resolve(ack.to()) == network.self()) {
            return; // the receiver failed and this server took its place: its values were handed to itself
        }
        List<ValueRef> handedOn = new ArrayList<>();
        for (RoutedPayload payload : acknowledged) {
            ValueRef.forEachIn(payload, handedOn::add);
        }
        if (!handedOn.isEmpty()) {
            // A copy this server holds may read one too (this server mirrors the receiver, whose change storing the
            // value reaches the copy before it acknowledges): that one stays until it is read.
            handedOn.removeAll(mirroring.copies().valuesAmong(handedOn));
        }
        if (!handedOn.isEmpty()) {
            host.handedOn(handedOn);
        }
    }

    /**
     * Sends every unacknowledged message again (after repairs), once the changes recorded so far are committed. The
     * messages are the ones outstanding now: one routed after this call is delivered when its own change commits,
     * not with these (before its mirror has the change, if the resend's commit came first).
     */
    void resendUnacknowledged() {
        if (!network.joined()) {
            return;
        }
        List<Message.Routed> again = channels.unacknowledged();
        mirroring.afterCommit(() -> {
            for (Message.Routed m : again) {
                if (host.trails()) {
                    trail(m.payload(), "resent:" + m.from() + ">" + m.to() + "." + m.seq());
                }
                deliver(m);
            }
        });
    }
}
