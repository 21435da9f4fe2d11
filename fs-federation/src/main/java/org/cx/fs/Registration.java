package org.cx.fs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file server's registration with its name services, renewed every {@link NameService#RENEW} on a thread of its
 * own: its id, address, host, capacity and free space, to every name service it was given (a primary and its
 * standby), telling each the highest epoch any of them said, so that a former primary hears of a newer one and stops
 * answering.
 */
final class Registration implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Registration.class);

    private final String id;
    private final String nameServices;
    private final Tls tls;
    private final Path root;
    private final Supplier<String> address;
    /** Connections to the name services, by address; the renewing thread's. */
    private final Map<String, FsConnection> names = new HashMap<>();
    private final Set<String> failing = new HashSet<>();
    private long epochSeen;
    private volatile boolean registered;

    /**
     * @param id           the file server's id
     * @param nameServices their addresses, comma-separated
     * @param root         the exported directory, whose disk's capacity and free space are told
     * @param address      where clients reach the file server
     */
    Registration(String id, String nameServices, Tls tls, Path root, Supplier<String> address) {
        this.id = id;
        this.nameServices = nameServices;
        this.tls = tls;
        this.root = root;
        this.address = address;
    }

    /** Whether a primary name service took the last registration. */
    boolean registered() {
        return registered;
    }

    /** Registers with every name service given. */
    void renew() {
        boolean any = false;
        for (String a : nameServices.split(",")) {
            any |= renew(a.trim());
        }
        if (any && !registered) {
            LOG.info("file server {} registered with the name service at {}", id, nameServices);
        }
        registered = any;
    }

    /** Whether the name service at {@code at} took the registration as the primary. */
    private boolean renew(String at) {
        FsConnection c = names.get(at);
        try {
            if (c == null) {
                c = FsConnection.open(at, tls, Caller.SERVICE.name(), epochSeen);
                names.put(at, c);
            }
            FileStore store = Files.getFileStore(root);
            ObjectNode reply = c.call(Json.op("register").put("id", id).put("address", address.get())
                    .put("host", localHost()).put("capacity", store.getTotalSpace())
                    .put("free", store.getUsableSpace()).put("epoch", epochSeen));
            epochSeen = Math.max(epochSeen, reply.path("epoch").asLong());
            failing.remove(at);
            return reply.path("role").asText("primary").equals("primary");
        } catch (IOException e) {
            if (failing.add(at)) {
                LOG.warn("file server {}: cannot register with the name service at {} ({}); trying again every {} s",
                        id, at, e.getMessage(), NameService.RENEW.toSeconds());
            }
            if (c != null) {
                c.close();
                names.remove(at);
            }
            return false;
        }
    }

    /** This host's name, as others should find it (loopback's address if it has none). */
    static String localHost() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    @Override
    public void close() {
        names.values().forEach(FsConnection::close);
    }
}
