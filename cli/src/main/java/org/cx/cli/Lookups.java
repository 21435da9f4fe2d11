package org.cx.cli;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;

/** What the commands ask a lookup service: a server for a producer, the network's root for a consumer. */
final class Lookups {
    /** Appended to every --lookup option's help. */
    static final String MULTICAST_HELP = " 'multicast' instead of HOST:PORT finds a lookup service started with "
            + "'cx lookup --multicast' by multicast discovery, where the network carries multicast.";

    private Lookups() {
    }

    /** The address of the registered task server with the fewest producers (spreading producers evenly). */
    static String serverForProducer(String lookup) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return serverForProducer(discovery, lookup);
        }
    }

    static String serverForProducer(Discovery discovery, String lookup) throws IOException {
        List<ServiceRecord> servers = discovery.lookup(Discovery.TASK_SERVER);
        return servers.stream()
                .min(Comparator.comparingInt(ServiceRecord::producers).thenComparing(ServiceRecord::address))
                .map(ServiceRecord::address)
                .orElseThrow(() -> new IOException("no task server is registered with the lookup service at "
                        + lookup + "; start one with 'cx server --lookup " + lookup + "'"));
    }

    /** The address of the production network's primary root, where consumers submit. */
    static String networkRoot(String lookup) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return networkRoot(discovery, lookup);
        }
    }

    static String networkRoot(Discovery discovery, String lookup) throws IOException {
        List<ServiceRecord> networks = discovery.lookup(Discovery.NETWORK);
        if (!networks.isEmpty()) {
            return networks.get(0).address();
        }
        return discovery.lookup(Discovery.TASK_SERVER).stream().filter(s -> s.position() == 0).findFirst()
                .map(ServiceRecord::address)
                .orElseThrow(() -> new IOException("no production network is registered with the lookup service at "
                        + lookup + "; start a server with 'cx server --lookup " + lookup + "'"));
    }

    /** Exactly one of {@code --server} and {@code --lookup}, resolved to a server address. */
    static String serverOrLookup(String server, String lookup, boolean forProducer) throws IOException {
        if ((server == null) == (lookup == null)) {
            throw new IllegalArgumentException("give either --server HOST:PORT or --lookup HOST:PORT (a lookup "
                    + "service started with 'cx lookup')");
        }
        if (server != null) {
            return server;
        }
        return forProducer ? serverForProducer(lookup) : networkRoot(lookup);
    }
}
