package org.cx.wire;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.Comparator;
import java.util.List;

/**
 * Where a process listens and what it tells others: the address to advertise for a bind address, and what to say
 * when it cannot listen where it was told to (which address, why, and what to do).
 */
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

    /** Whether {@code host} means every interface of this machine. */
    public static boolean wildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    }

    /**
     * The host others are told to reach a process bound to {@code host} at: {@code advertise} if given, else
     * {@code host} itself, else (bound to every interface) {@link #routable()}.
     */
    public static String advertised(String host, String advertise) {
        if (advertise != null && !advertise.isBlank()) {
            return advertise;
        }
        return wildcard(host) ? routable() : host;
    }

    /**
     * An address of this machine that other machines can reach: the host name's address unless it is a loopback one
     * (as {@code /etc/hosts} often makes it), else the first address of an interface that is up, not loopback and
     * not link-local, IPv4 before IPv6 (sorted, so the same one every time); loopback when there is none.
     */
    public static String routable() {
        try {
            InetAddress named = InetAddress.getLocalHost();
            if (!named.isLoopbackAddress() && !named.isLinkLocalAddress()) {
                return named.getHostAddress();
            }
        } catch (IOException e) {
            // no name for this host: look at the interfaces
        }
        try {
            List<InetAddress> candidates = NetworkInterface.networkInterfaces()
                    .filter(Listening::usable)
                    .flatMap(NetworkInterface::inetAddresses)
                    .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress())
                    .sorted(Comparator.comparing((InetAddress a) -> !(a instanceof Inet4Address))
                            .thenComparing(InetAddress::getHostAddress))
                    .toList();
            if (!candidates.isEmpty()) {
                String address = candidates.get(0).getHostAddress();
                int zone = address.indexOf('%');
                return zone < 0 ? address : address.substring(0, zone);
            }
        } catch (SocketException e) {
            // fall through to loopback
        }
        return "127.0.0.1";
    }

    private static boolean usable(NetworkInterface nic) {
        try {
            return nic.isUp() && !nic.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }
}
