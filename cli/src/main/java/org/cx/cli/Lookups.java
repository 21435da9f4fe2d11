package org.cx.cli;

import java.io.IOException;
import java.net.Socket;
import java.util.List;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.security.Tls;
import org.cx.wire.WireClient;

/**
 * What the commands ask a lookup service: a server for a producer, the root for a consumer ({@link Networks}), the
 * addresses of the file and accounting services.
 */
final class Lookups {
    /** Appended to every --lookup option's help. */
    static final String MULTICAST_HELP = " 'multicast' instead of HOST:PORT finds a lookup service started with "
            + "'cx lookup --multicast' by multicast discovery, where the network carries multicast.";
    /** Appended to the help of a client's --lookup option. */
    static final String FALLBACK_HELP = " With --server as well, it is asked only when that server does not answer; "
            + "a registered server that does not answer is skipped.";

    private Lookups() {
    }

    /**
     * The server a client should use: {@code --server}, or a member of the network registered at {@code --lookup}
     * (the primary root first, or, for a producer, the server with the fewest producers). A registration outlives a
     * dead server by up to its lease, so each is tried in turn until one accepts a connection; with both options, the
     * lookup service is asked when {@code --server} does not answer.
     */
    static String serverOrLookup(String server, String lookup, boolean forProducer, Tls tls) throws IOException {
        if (server == null && lookup == null) {
            throw new IllegalArgumentException("give --server HOST:PORT or --lookup HOST:PORT (a lookup service "
                    + "started with 'cx lookup')");
        }
        if (lookup == null) {
            return server; // its own connection failure says what is wrong
        }
        if (server != null && answers(server)) {
            return server;
        }
        List<String> members;
        try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
            members = forProducer ? Networks.serversForProducer(discovery, tls) : Networks.members(discovery, tls);
        }
        if (members.isEmpty()) {
            throw new IOException((server != null ? "no server answers at " + server + ", and no" : "no")
                    + " production network is registered with the lookup service at " + lookup
                    + "; start a server with 'cx server --lookup " + lookup + "'");
        }
        for (String member : members) {
            if (answers(member)) {
                return member;
            }
        }
        throw new IOException("no server answers at " + (server != null ? server + " or " : "") + "the addresses "
                + "registered with the lookup service at " + lookup + " (" + String.join(", ", members) + "): the "
                + "network may be down; start a server with 'cx server --lookup " + lookup + "'");
    }

    /** Whether a TCP connection to {@code address} is accepted within a second (then closed at once). */
    private static boolean answers(String address) {
        try (Socket probe = new Socket()) {
            probe.connect(WireClient.parseAddress(address), 1_000);
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
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
