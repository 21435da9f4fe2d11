package org.cx.server;

import org.cx.security.CredentialRole;
import org.cx.security.PeerIdentity;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.WireConfig;

/**
 * The first state of every connection to a server: it reads the peer's {@code Hello}, checks it, and from then on
 * hands every message to the session of the peer's role ({@link PeerSession}). Anything but a {@code Hello} of this
 * protocol version is refused with a reason, and that connection only is closed.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>The peer sends {@code Hello(version, role, name, workers, jmx)} as its first frame.</li>
 *   <li>A wrong version or another first message: {@code Refused(reason)}, counted, and the connection closes.
 *       So does a role the peer's credential does not give it (a producer credential claiming to be a server).</li>
 *   <li>Otherwise the peer gets an id, the session of its role takes the connection (a producer is added to the
 *       scheduler with its workers; a server's id is kept on the connection), and the server answers
 *       {@code Welcome(version, peerId, serverName, serverId, mirrors)}: producers and consumers learn where to go
 *       if this server fails.</li>
 * </ol>
 */
final class Handshake implements ServerCore.Inbound {

    private final ServerCore core;
    private final PeerConnection connection;
    private PeerSession session;
    private boolean refused;

    Handshake(ServerCore core, PeerConnection connection) {
        this.core = core;
        this.connection = connection;
    }

    @Override
    public void receive(Message msg) {
        if (session != null) {
            session.receive(msg);
            return;
        }
        if (refused) {
            return;
        }
        if (!(msg instanceof Message.Hello hello)) {
            refuse("expected Hello as the first message, got " + msg.getClass().getSimpleName());
            return;
        }
        if (hello.version() != WireConfig.PROTOCOL_VERSION) {
            refuse("protocol version " + hello.version() + " is not supported; this server speaks version "
                    + WireConfig.PROTOCOL_VERSION + " (upgrade the older side)");
            return;
        }
        String unauthorized = unauthorized(hello.role(), connection.identity());
        if (unauthorized != null) {
            refuse(unauthorized);
            return;
        }
        session = PeerSession.of(core, hello, connection);
        core.attached(session);
        connection.send(new Message.Welcome(WireConfig.PROTOCOL_VERSION, session.peerId(), core.config().name(),
                core.networkInternals().self(), session.tellsMirrors()
                        ? core.networkInternals().mirrorAddresses() : new String[0]));
    }

    /**
     * Why a peer whose credential names {@code identity} may not act as {@code claimed}; null if it may. On a plain
     * connection (no identity) every peer is what it says.
     */
    static String unauthorized(Role claimed, PeerIdentity identity) {
        if (identity == null) {
            return null;
        }
        boolean allowed = switch (claimed) {
            case SERVER -> identity.role() == CredentialRole.SERVER;
            case PRODUCER -> identity.role() == CredentialRole.PRODUCER;
            case CONSUMER -> identity.role().consumes();
            case OBSERVER -> true;
        };
        return allowed ? null : "a " + identity.role().label() + " credential (" + identity.name()
                + ") may not connect as a " + claimed.name().toLowerCase(java.util.Locale.ROOT)
                + " (issue one for that role with: cx keys issue)";
    }

    @Override
    public void readComplete() {
        if (session != null) {
            session.readComplete();
        }
    }

    @Override
    public void closed() {
        if (session != null) {
            session.closed();
        }
    }

    @Override
    public void failed(Throwable cause) {
        if (session != null) {
            session.failed(cause);
        } else if (cause instanceof java.io.IOException || PeerSession.ownFault(cause)) {
            connection.close(); // a broken connection, or this server's own exhaustion: nobody to blame
        } else {
            refuse("bad input: " + (cause.getMessage() == null ? cause.toString() : cause.getMessage()));
        }
    }

    private void refuse(String reason) {
        refused = true;
        PeerSession.refuse(core, connection, String.valueOf(connection), reason);
    }
}
