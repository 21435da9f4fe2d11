package org.cx.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.security.CodeSigning;
import org.cx.security.CredentialRole;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;

/** What the commands ask a lookup service: a server for a producer, the network's root for a consumer. */
final class Lookups {
    /** Appended to every --lookup option's help. */
    static final String MULTICAST_HELP = " 'multicast' instead of HOST:PORT finds a lookup service started with "
            + "'cx lookup --multicast' by multicast discovery, where the network carries multicast.";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lookups.class);

    private Lookups() {
    }

    /** The address of the registered task server with the fewest producers (spreading producers evenly). */
    static String serverForProducer(String lookup, Tls tls) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return serverForProducer(discovery, lookup, tls);
        }
    }

    static String serverForProducer(Discovery discovery, String lookup, Tls tls) throws IOException {
        List<ServiceRecord> servers = trusted(discovery.lookup(Discovery.TASK_SERVER), tls);
        return servers.stream()
                .min(Comparator.comparingInt(ServiceRecord::producers).thenComparing(ServiceRecord::address))
                .map(ServiceRecord::address)
                .orElseThrow(() -> new IOException("no task server is registered with the lookup service at "
                        + lookup + "; start one with 'cx server --lookup " + lookup + "'"));
    }

    /** The address of the production network's primary root, where consumers submit. */
    static String networkRoot(String lookup, Tls tls) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return networkRoot(discovery, lookup, tls);
        }
    }

    static String networkRoot(Discovery discovery, String lookup, Tls tls) throws IOException {
        List<ServiceRecord> networks = trusted(discovery.lookup(Discovery.NETWORK), tls);
        if (!networks.isEmpty()) {
            return networks.get(0).address();
        }
        return trusted(discovery.lookup(Discovery.TASK_SERVER), tls).stream().filter(s -> s.position() == 0).findFirst()
                .map(ServiceRecord::address)
                .orElseThrow(() -> new IOException("no production network is registered with the lookup service at "
                        + lookup + "; start a server with 'cx server --lookup " + lookup + "'"));
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
        return forProducer ? serverForProducer(lookup, tls) : networkRoot(lookup, tls);
    }

    /** {@code record} signed by the holder of {@code tls} (a server); as it is for null (plain connections). */
    static ServiceRecord signed(ServiceRecord record, Tls tls) {
        if (tls == null) {
            return record;
        }
        CodeSigning.Signed s = tls.sign(record.signedText());
        Base64.Encoder b64 = Base64.getEncoder();
        return record.signed(b64.encodeToString(s.signer()), b64.encodeToString(s.signature()));
    }

    /**
     * The records a server of this network signed (all of them for a null {@code tls}): anyone may register in a
     * lookup service, and an entry nobody of the network made is skipped, with a warning.
     */
    static List<ServiceRecord> trusted(List<ServiceRecord> records, Tls tls) {
        if (tls == null) {
            return records;
        }
        List<ServiceRecord> trusted = new ArrayList<>();
        for (ServiceRecord r : records) {
            try {
                Base64.Decoder b64 = Base64.getDecoder();
                PeerIdentity who = tls.signatory(r.signedText(), new CodeSigning.Signed(b64.decode(r.signer()),
                        b64.decode(r.signature())));
                if (who.role() != CredentialRole.SERVER) {
                    throw new CodeSigning.RefusedCodeException("it is signed by " + who + ", not by a server");
                }
                trusted.add(r);
            } catch (CodeSigning.RefusedCodeException | IllegalArgumentException e) {
                LOG.warn("skipping the registration of {} at {}: {}", r.name(), r.address(), e.getMessage());
            }
        }
        return trusted;
    }
}
