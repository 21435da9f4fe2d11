package org.cx.server;

import java.util.ArrayList;
import java.util.List;
import org.cx.security.PeerIdentity;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.ValueRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection after its handshake: one subclass per role, each taking the messages that role may send and refusing
 * the rest with a reason (that connection only is closed). Every message is one command on the event loop; every read
 * burst ends with the server's {@link DutyCycle#endOfBurst}. Knows nothing of the transport: {@link Handshake} hands it
 * what its connection reports.
 */
abstract class PeerSession {
    private static final Logger LOG = LoggerFactory.getLogger(PeerSession.class);

    final ServerCore node;
    private final long peerId;
    private final String peerName;
    private final String jmx;
    private final PeerConnection connection;
    private boolean closing;

    PeerSession(ServerCore node, Message.Hello hello, PeerConnection connection) {
        this.node = node;
        this.peerId = node.nextPeerId();
        PeerIdentity identity = connection.identity();
        this.peerName = (identity == null ? hello.name() : identity.name()) + "@" + connection;
        this.jmx = hello.jmx();
        this.connection = connection;
    }

    /** The session of the role {@code hello} names. */
    static PeerSession of(ServerCore node, Message.Hello hello, PeerConnection connection) {
        return switch (hello.role()) {
            case PRODUCER -> new ProducerSession(node, hello, connection);
            case CONSUMER -> new ConsumerSession(node, hello, connection);
            case SERVER -> new ServerSession(node, hello, connection);
            case OBSERVER -> new ObserverSession(node, hello, connection);
        };
    }

    abstract Role role();

    /** Whether this peer is told the server's mirror group (to fail over to). */
    boolean tellsMirrors() {
        return role() == Role.PRODUCER || role() == Role.CONSUMER;
    }

    /** Takes one message of this role; false if the role may not send it. */
    abstract boolean handle(Message msg);

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

    /** One message from the peer: one command. */
    void receive(Message msg) {
        if (closing) {
            return;
        }
        node.scheduler().tick(node.cycle().now());
        boolean large = node.largeForABatch(msg);
        if (large) {
            node.cycle().endOfBurst(); // its changes go to the mirrors in a batch of their own
        }
        if (!handle(msg)) {
            refuse(msg.getClass().getSimpleName() + " is not a message a " + role().name().toLowerCase()
                    + " may send");
        }
        if (large || node.mirrorBatchFull()) {
            node.cycle().endOfBurst();
        }
    }

    /** Refuses this peer: says why, counts it, and closes this connection only. */
    void refuse(String reason) {
        closing = true;
        refuse(node, connection, peerName, reason);
    }

    static void refuse(ServerCore node, PeerConnection connection, String who, String reason) {
        node.refused();
        LOG.warn("closing connection from {}: {}", who, reason);
        connection.refuse(new Message.Refused(reason));
    }

    /** A burst of messages was read: send what it produced. */
    void readComplete() {
        connection.flush();
        node.cycle().endOfBurst();
    }

    /** The connection closed. */
    void closed() {
        node.detached(this);
        left();
        node.cycle().endOfBurst();
    }

    /** Reading failed: an I/O error closes quietly, anything else is bad input and refuses the peer. */
    void failed(Throwable cause) {
        String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        if (ownFault(cause)) {
            LOG.error("this server ran short ({}) while reading from {}; closing that connection, not blaming it",
                    reason, peerName);
            connection.close();
            return;
        }
        if (cause instanceof java.io.IOException) {
            LOG.debug("connection from {} failed: {}", peerName, reason);
            connection.close();
            return;
        }
        refuse("bad input: " + reason);
    }

    /** Whether {@code cause} is this server's own exhaustion (memory), not the peer's bad input. */
    static boolean ownFault(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof VirtualMachineError) {
                return true;
            }
        }
        return false;
    }

    /** A producer: asks for work, reports completions, answers revokes, fetches code. */
    static final class ProducerSession extends PeerSession {
        final ProducerState producer;

        ProducerSession(ServerCore node, Message.Hello hello, PeerConnection connection) {
            super(node, hello, connection);
            PeerIdentity identity = connection.identity();
            this.producer = node.scheduler().addProducer(peerId(), hello.name(),
                    identity == null ? hello.name() : identity.name(), Math.max(1, hello.workers()));
        }

        @Override
        Role role() {
            return Role.PRODUCER;
        }

        @Override
        boolean handle(Message msg) {
            Scheduler scheduler = node.scheduler();
            switch (msg) {
                case Message.Request r -> {
                    if (r.idleWorkers() < 0) {
                        refuse("negative idle count in Request");
                    } else {
                        scheduler.offering(producer, r.openWorkers());
                        scheduler.request(producer, r.credit(), r.idleWorkers());
                    }
                }
                case Message.Completed c -> {
                    for (var completion : c.completions()) {
                        scheduler.completed(producer, completion);
                    }
                }
                case Message.ValueHeading h -> {
                    ValueRef ref = ValueRef.of(h.ref());
                    List<PeerConnection> readers = new ArrayList<>(1);
                    for (long peer : scheduler.readersAhead(producer, ref, h.to())) {
                        PeerSession reader = node.sessions().get(peer);
                        if (reader != null) {
                            readers.add(reader.connection());
                        }
                    }
                    if (!readers.isEmpty()) {
                        connection().relay(ref, readers);
                    }
                }
                case Message.Released r -> scheduler.released(producer, r.ids());
                case Message.GiveBack g -> scheduler.givenBack(producer, g.ids());
                case Message.TaskFailed f -> scheduler.taskFailed(producer, f.id(), f.reason(), node.cycle().now());
                case Message.FetchBundle f -> {
                    if (toldOf(f.bundle())) {
                        node.code().fetch(f.bundle(), connection());
                    } else {
                        connection().write(new Message.NoBundle(f.bundle(), "this producer was given no task that "
                                + "runs from that bundle"));
                    }
                }
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** Whether this producer was told that a computation it has tasks of runs from {@code bundle}. */
        private boolean toldOf(String bundle) {
            for (long computation : producer.codeSent) {
                String sources = node.scheduler().bundleOf(computation);
                if (sources != null && org.cx.wire.Sources.bundles(sources).contains(bundle)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        void left() {
            node.scheduler().removeProducer(producer);
            LOG.debug("producer {} left; {} tasks released", peerId(), producer.heldCount());
        }
    }

    /** A consumer: submits computations (uploading their code first if asked), collects results. */
    static final class ConsumerSession extends PeerSession implements ConsumerHandle {
        private final String owner;

        ConsumerSession(ServerCore node, Message.Hello hello, PeerConnection connection) {
            super(node, hello, connection);
            PeerIdentity identity = connection.identity();
            this.owner = identity == null ? "" : identity.name();
        }

        @Override
        public String owner() {
            return owner;
        }

        @Override
        Role role() {
            return Role.CONSUMER;
        }

        @Override
        boolean handle(Message msg) {
            switch (msg) {
                case Message.Submit s -> submit(s);
                case Message.BundleChunk c -> node.code().upload(c, owner);
                case Message.Collect c -> {
                    if (!node.scheduler().submissions().collect(this, c.computation(), c.watch())) {
                        connection().write(new Message.Failed(c.computation(), "",
                                node.scheduler().submissions().unknown(c.computation())));
                    }
                }
                case Message.Collected c -> node.scheduler().submissions().collected(this, c.computation());
                case Message.Diagnose d -> connection().write(node.scheduler().submissions().diagnose(this, d.computation()));
                case Message.Cancel k -> {
                    String refusal = node.scheduler().submissions().cancel(this, k.computation(), node.cycle().now());
                    Message answer = new Message.CancelAnswer(k.computation(), refusal == null ? "" : refusal);
                    // Once the mirrors have it: a consumer told sooner could count on a cancellation that the
                    // failure of this server then undoes (the computation would run on, and deliver its result).
                    node.networkInternals().afterCommit(() -> connection().send(answer));
                }
                case Message.Prioritize p -> {
                    String refusal = node.scheduler().submissions().prioritize(this, p.computation(), p.priority());
                    Message answer = new Message.Prioritized(p.computation(), refusal == null ? "" : refusal);
                    node.networkInternals().afterCommit(() -> connection().send(answer)); // as a cancellation's
                }
                case Message.ListComputations l -> connection().write(node.scheduler().submissions().list(this));
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** A submission runs once its code bundle is here; until then the consumer is asked to upload it. */
        private void submit(Message.Submit s) {
            CodeService code = node.code();
            String missing = code.missing(s.bundle());
            if (missing != null) {
                String rejection = code.takeRejection(missing);
                connection().write(rejection != null ? new Message.SubmitRefused(s.requestId(), rejection)
                        : new Message.NeedBundle(s.requestId(), missing));
                return;
            }
            String overQuota = node.scheduler().submissions().submitRefusal(this);
            if (overQuota != null) {
                connection().write(new Message.SubmitRefused(s.requestId(), overQuota));
                return;
            }
            long id = node.scheduler().submissions().submit(this, s.root(), s.bundle(), s.quorum(), s.priority(),
                    Math.min(s.timeoutMillis(), Long.MAX_VALUE / 1_000_000) * 1_000_000, node.cycle().now());
            org.cx.wire.Sources.bundles(s.bundle()).forEach(code::used);
            node.accepted(this, s.requestId(), id);
            LOG.debug("consumer {} submitted computation {}", peerId(), Long.toHexString(id));
        }

        @Override
        void left() {
            node.scheduler().submissions().consumerGone(this);
        }
    }

    /** Another server of the network, on the connection it opened to this one. */
    static final class ServerSession extends PeerSession {

        ServerSession(ServerCore node, Message.Hello hello, PeerConnection connection) {
            super(node, hello, connection);
            connection.serverId(hello.workers()); // a server sends its id there
            connection.takeValueReleases();
        }

        @Override
        Role role() {
            return Role.SERVER;
        }

        @Override
        boolean handle(Message msg) {
            node.networkInternals().onMessage(msg, connection());
            return true;
        }
    }

    /** A tool that asks the network for its status ({@code cx network status}). */
    static final class ObserverSession extends PeerSession {

        ObserverSession(ServerCore node, Message.Hello hello, PeerConnection connection) {
            super(node, hello, connection);
        }

        @Override
        Role role() {
            return Role.OBSERVER;
        }

        @Override
        boolean handle(Message msg) {
            if (msg instanceof Message.NetworkQuery q) {
                node.networkInternals().onMessage(q, connection());
                return true;
            }
            return false;
        }
    }
}
