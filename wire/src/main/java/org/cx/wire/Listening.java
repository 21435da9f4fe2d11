package org.cx.wire;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** What to say when a process cannot listen where it was told to: which address, why, and what to do. */
public final class Listening {
    private Listening() {
    }

    /**
     * The failure to listen on {@code host:port}, said in one line: the address in use (with {@code ifInUse}, what
     * to do then), or a host that is not this machine's.
     */
    public static IOException failure(String host, int port, Throwable cause, String ifInUse) {
        String why = String.valueOf(cause.getMessage());
        String where = host + ":" + port;
        if (why.contains("Address already in use")) {
            return new IOException("cannot listen on " + where + ": another process listens there (" + ifInUse + ")",
                    cause);
        }
        if (why.contains("Cannot assign requested address") || why.contains("cannot assign requested address")) {
            return new IOException("cannot listen on " + where + ": " + host + " is not an address of this machine "
                    + "(give --host one of its addresses, or 0.0.0.0 for all of them)", cause);
        }
        Throwable inner = cause.getCause();
        if (inner != null && inner != cause && (inner instanceof BindException || inner instanceof IOException)) {
            return failure(host, port, inner, ifInUse);
        }
        return new IOException("cannot listen on " + where + ": " + WireClient.reason(cause), cause);
    }

    /**
     * Fails with {@link #failure} now if {@code host:port} cannot be listened on (port 0 always can): for services
     * whose own failure to bind would say less, later.
     */
    public static void check(String host, int port, String ifInUse) throws IOException {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new java.net.InetSocketAddress(InetAddress.getByName(host), port));
        } catch (IOException e) {
            throw failure(host, port, e, ifInUse);
        }
    }
}
