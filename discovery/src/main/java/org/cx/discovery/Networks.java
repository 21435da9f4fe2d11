package org.cx.discovery;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import org.cx.security.CodeSigning;
import org.cx.security.CredentialRole;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;

/**
 * Finding a production network at its lookup service: the root where a consumer submits
 * ({@code Consumer.connect(Networks.networkRoot("host:4160", tls), tls)}), the server a producer attaches to. Only
 * registrations that a server of the network signed are believed (on a network with TLS).
 */
public final class Networks {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Networks.class);

    private Networks() {
    }

    /** The address of the registered task server with the fewest producers (spreading producers evenly). */
    public static String serverForProducer(String lookup, Tls tls) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return serverForProducer(discovery, lookup, tls);
        }
    }

    /** {@link #serverForProducer(String, Tls)} through a discovery already connected to {@code lookup}. */
    public static String serverForProducer(Discovery discovery, String lookup, Tls tls) throws IOException {
        List<String> servers = serversForProducer(discovery, tls);
        if (servers.isEmpty()) {
            throw new IOException("no task server is registered with the lookup service at " + lookup
                    + "; start one with 'cx server --lookup " + lookup + "'");
        }
        return servers.get(0);
    }

    /** The registered task servers' addresses, fewest producers first: where a producer should try to attach. */
    public static List<String> serversForProducer(Discovery discovery, Tls tls) throws IOException {
        return trusted(discovery.lookup(Discovery.TASK_SERVER), tls).stream()
                .sorted(Comparator.comparingInt(ServiceRecord::producers).thenComparing(ServiceRecord::address))
                .map(ServiceRecord::address)
                .toList();
    }

    /**
     * The address of the network's primary root, asking the lookup service at {@code lookup} (HOST:PORT, or
     * "multicast"); {@code tls}: the asker's credential (null on a plain network), to check who registered it.
     */
    public static String networkRoot(String lookup, Tls tls) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return networkRoot(discovery, lookup, tls);
        }
    }

    /** {@link #networkRoot(String, Tls)} through a discovery already connected to {@code lookup}. */
    public static String networkRoot(Discovery discovery, String lookup, Tls tls) throws IOException {
        List<ServiceRecord> networks = trusted(discovery.lookup(Discovery.NETWORK), tls);
        if (!networks.isEmpty()) {
            return networks.get(0).address();
        }
        return trusted(discovery.lookup(Discovery.TASK_SERVER), tls).stream().filter(s -> s.position() == 0).findFirst()
                .map(ServiceRecord::address)
                .orElseThrow(() -> new IOException("no production network is registered with the lookup service at "
                        + lookup + "; start a server with 'cx server --lookup " + lookup + "'"));
    }

    /** {@link #members(Discovery, Tls)} of the network registered at {@code lookup} (HOST:PORT, or "multicast"). */
    public static List<String> members(String lookup, Tls tls) throws IOException {
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            return members(discovery, tls);
        }
    }

    /**
     * Every member of the network registered at the lookup service, in the order a client should try them: the
     * primary root (its network registration), then the servers by tree position; servers still joining last. A
     * registration outlives its server by up to a lease, so the first may be dead: try the next.
     */
    public static List<String> members(Discovery discovery, Tls tls) throws IOException {
        java.util.LinkedHashSet<String> ordered = new java.util.LinkedHashSet<>();
        trusted(discovery.lookup(Discovery.NETWORK), tls).forEach(r -> ordered.add(r.address()));
        trusted(discovery.lookup(Discovery.TASK_SERVER), tls).stream()
                .sorted(Comparator.comparingInt((ServiceRecord r) -> r.position() < 0 ? Integer.MAX_VALUE
                        : r.position()).thenComparing(ServiceRecord::address))
                .forEach(r -> ordered.add(r.address()));
        return List.copyOf(ordered);
    }

    /** {@code record} signed by the holder of {@code tls} (a server); as it is for null (plain connections). */
    public static ServiceRecord signed(ServiceRecord record, Tls tls) {
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
    public static List<ServiceRecord> trusted(List<ServiceRecord> records, Tls tls) {
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
