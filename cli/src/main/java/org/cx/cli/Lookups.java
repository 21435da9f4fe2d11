package org.cx.cli;

import java.io.IOException;
import org.cx.discovery.Networks;
import org.cx.security.Tls;

/** What the commands ask a lookup service ({@link Networks}): a server for a producer, the root for a consumer. */
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
}
