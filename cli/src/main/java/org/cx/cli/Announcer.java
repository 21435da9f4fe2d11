package org.cx.cli;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.cx.discovery.Discovery;
import org.cx.discovery.Networks;
import org.cx.discovery.ServiceRecord;
import org.cx.server.TaskServerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a task server registered with a lookup service: a {@code task-server} service with its name, address,
 * tree position, tasks and producers (refreshed every two seconds), and, while it is the primary root, the
 * {@code network} service consumers submit to.
 */
final class Announcer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Announcer.class);

    private final Discovery discovery;
    private final TaskServerNode node;
    private final String address;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cx-announcer");
        t.setDaemon(true);
        return t;
    });
    private Discovery.Registration server;
    private Discovery.Registration network;
    private ServiceRecord last;
    /** The server's signatures of its two registrations (they cover what does not change), or unsigned ones. */
    private final ServiceRecord signedServer;
    private final ServiceRecord signedNetwork;

    private Announcer(Discovery discovery, TaskServerNode node) {
        this.discovery = discovery;
        this.node = node;
        this.address = node.advertisedAddress();
        String name = node.config().name();
        this.signedServer = Networks.signed(ServiceRecord.of(Discovery.TASK_SERVER, name, address),
                node.config().tls());
        this.signedNetwork = Networks.signed(ServiceRecord.of(Discovery.NETWORK, name, address), node.config().tls());
    }

    /**
     * Registers {@code node} now (so that it can be found as soon as this returns) and keeps it fresh; the entries
     * carry the server's signature when it has a credential.
     */
    static Announcer start(Discovery discovery, TaskServerNode node) throws IOException {
        Announcer a = new Announcer(discovery, node);
        a.refresh();
        a.timer.scheduleWithFixedDelay(a::refreshQuietly, 2, 2, TimeUnit.SECONDS);
        return a;
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot update this server's registration with the lookup service: {}", e.toString());
        }
    }

    private synchronized void refresh() throws IOException {
        TaskServerNode.NetworkView view = node.network();
        TaskServerNode.Status status = node.status();
        ServiceRecord now = new ServiceRecord(Discovery.TASK_SERVER, status.name(), address, view.position(),
                status.ready(), status.producers(), signedServer.signer(), signedServer.signature());
        if (server == null) {
            server = discovery.register(now);
        } else if (!now.equals(last)) {
            server.update(now);
        }
        last = now;
        boolean root = view.position() == 0;
        if (root && network == null) {
            network = discovery.register(signedNetwork);
        } else if (!root && network != null) {
            network.close();
            network = null;
        }
    }

    @Override
    public synchronized void close() {
        timer.shutdownNow();
        if (network != null) {
            network.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
