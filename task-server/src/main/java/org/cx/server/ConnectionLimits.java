package org.cx.server;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * Caps on the connections one server holds: in all, and from one address. A connection over a cap is refused with
 * the reason (after its TLS handshake, so that the peer can read it) and closed; the server's own resources are
 * never exhausted by one peer opening connections. Event loop only.
 */
final class ConnectionLimits {
    private final int total;
    private final int perAddress;
    private int open;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();

    ConnectionLimits(int total, int perAddress) {
        this.total = total;
        this.perAddress = perAddress;
    }

    /** Counts one more connection from {@code address}; returns why it is refused (and counts nothing), or null. */
    String admit(InetAddress address) {
        if (open >= total) {
            return "this server holds " + open + " connections, its limit (--max-connections); try again later";
        }
        int from = byAddress.getOrDefault(address, 0);
        if (from >= perAddress) {
            return "this server holds " + from + " connections from " + address.getHostAddress()
                    + ", the limit per address (--max-connections-per-address)";
        }
        open++;
        byAddress.put(address, from + 1);
        return null;
    }

    /** A connection admitted from {@code address} closed. */
    void release(InetAddress address) {
        open--;
        byAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
    }

    int open() {
        return open;
    }
}
