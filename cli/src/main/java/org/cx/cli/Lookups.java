package org.cx.cli;

import java.io.IOException;
import java.util.List;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.security.Tls;

/**
 * What the commands ask a lookup service: a server for a producer, the root for a consumer ({@link Networks}), the
 * addresses of the file and accounting services.
 */
final class Lookups {
    /** Appended to every --lookup option's help. */
    static final String MULTICAST_HELP = " 'multicast' instead of HOST:PORT finds a lookup service started with "
            + "'cx lookup --multicast' by multicast discovery, where the network carries multicast.";

    private Lookups() {
    }

    /** Exactly one of {@code --server} and {@code --lookup}, resolved to a server address. */
    static String serverOrLookup(String server, String lookup, boolean forProducer, Tls tls) throws IOException {
        if ((server == null) == (lookup == null)) {
            throw new IllegalArgumentException("give either --server HOST:PORT or --lookup HOST:PORT (a lookup "
                    + "service started with 'cx lookup')");
        }
        if (server != null) {
            return server;
        }
        return forProducer ? Networks.serverForProducer(lookup, tls) : Networks.networkRoot(lookup, tls);
    }

    /** The addresses of the services of {@code kind} registered at {@code lookup} (none: empty). */
    static List<String> registered(String lookup, String kind) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return discovery.lookup(kind).stream().map(ServiceRecord::address).toList();
        }
    }

    /** As {@link #registered}, saying how to start one ({@code start}, a command) if none is. */
    static List<String> required(String lookup, String kind, String what, String start) throws IOException {
        List<String> found = registered(lookup, kind);
        if (found.isEmpty()) {
            throw new IOException("no " + what + " is registered with the lookup service at " + lookup
                    + ": start one with '" + start + " --lookup " + lookup + "'");
        }
        return found;
    }
}
