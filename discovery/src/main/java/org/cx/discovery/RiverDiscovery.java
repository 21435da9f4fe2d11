package org.cx.discovery;

import java.io.IOException;
import java.net.MalformedURLException;
import java.rmi.RemoteException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import net.jini.core.discovery.LookupLocator;
import net.jini.core.entry.Entry;
import net.jini.core.lookup.ServiceItem;
import net.jini.core.lookup.ServiceMatches;
import net.jini.core.lookup.ServiceRegistrar;
import net.jini.core.lookup.ServiceRegistration;
import net.jini.core.lookup.ServiceTemplate;
import net.jini.discovery.DiscoveryEvent;
import net.jini.discovery.DiscoveryListener;
import net.jini.discovery.LookupDiscovery;
import net.jini.lookup.entry.Name;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Discovery} through one Apache River lookup service, found by unicast discovery ({@code jini://host:port},
 * always works) or, when asked for with {@value #MULTICAST}, by multicast discovery of group
 * {@value LookupService#GROUP} (only where the network carries multicast).
 * Registrations are leased for {@code lease} and renewed every third of it, so a process that dies leaves the
 * lookup service within one lease.
 */
public final class RiverDiscovery implements Discovery {
    private static final Logger LOG = LoggerFactory.getLogger(RiverDiscovery.class);
    /** What {@code --lookup} takes instead of HOST:PORT to find a lookup service by multicast. */
    public static final String MULTICAST = "multicast";
    /** Default lease of a registration. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(10);

    private final ServiceRegistrar registrar;
    private final String lookupAddress;
    private final Duration lease;
    private final java.util.concurrent.atomic.AtomicLong renewed = new java.util.concurrent.atomic.AtomicLong();
    private final ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cx-lease-renewal");
        t.setDaemon(true);
        return t;
    });

    /** The multicast discovery that found the registrar, kept until close; null for unicast. */
    private final LookupDiscovery multicast;

    private RiverDiscovery(ServiceRegistrar registrar, String lookupAddress, Duration lease,
                           LookupDiscovery multicast) {
        this.registrar = registrar;
        this.lookupAddress = lookupAddress;
        this.lease = lease;
        this.multicast = multicast;
    }

    /**
     * Finds the lookup service at {@code host:port} (unicast), or with {@value #MULTICAST} the first one of group
     * {@value LookupService#GROUP} that answers a multicast request, waiting up to {@code timeout}.
     */
    public static RiverDiscovery connect(String hostPort, Duration lease, Duration timeout) throws IOException {
        RiverCompat.install();
        if (MULTICAST.equals(hostPort)) {
            return discoverByMulticast(lease, timeout);
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("--lookup takes HOST:PORT, got '" + hostPort + "'");
        }
        LookupLocator locator;
        try {
            locator = new LookupLocator("jini://" + hostPort);
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("--lookup takes HOST:PORT, got '" + hostPort + "': " + e.getMessage());
        }
        try {
            return new RiverDiscovery(locator.getRegistrar((int) timeout.toMillis()), hostPort, lease, null);
        } catch (IOException | ClassNotFoundException e) {
            throw new IOException(notALookupService(hostPort.substring(0, colon), hostPort.substring(colon + 1)), e);
        }
    }

    /** Why {@code host:port} gave no lookup service: nothing listens there, or something else does. */
    private static String notALookupService(String host, String port) {
        boolean listens;
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(host, Integer.parseInt(port)), 2_000);
            listens = true;
        } catch (IOException | NumberFormatException probe) {
            listens = false;
        }
        return listens
                ? host + ":" + port + " answers, but it is no lookup service (a task server? give a server with "
                        + "--server, or the lookup service's own port with --lookup)"
                : "no lookup service answers at " + host + ":" + port + ": nothing listens there (start one with "
                        + "'cx lookup --port " + port + "')";
    }

    private static RiverDiscovery discoverByMulticast(Duration lease, Duration timeout) throws IOException {
        BlockingQueue<ServiceRegistrar> found = new LinkedBlockingQueue<>();
        LookupDiscovery discovery = new LookupDiscovery(new String[] {LookupService.GROUP});
        discovery.addDiscoveryListener(new DiscoveryListener() {
            @Override
            public void discovered(DiscoveryEvent e) {
                found.addAll(List.of(e.getRegistrars()));
            }

            @Override
            public void discarded(DiscoveryEvent e) {
            }
        });
        long deadline = System.nanoTime() + timeout.toNanos();
        String stopping = "";
        while (true) {
            ServiceRegistrar registrar;
            try {
                registrar = found.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                registrar = null;
            }
            if (registrar == null) {
                break;
            }
            LookupLocator locator;
            try {
                locator = registrar.getLocator();
            } catch (RemoteException e) {
                // One that is stopping still answers multicast for a moment; its calls fail. Wait for another.
                stopping = " (one answered but is stopping: " + e.getMessage() + ")";
                continue;
            }
            return new RiverDiscovery(registrar, locator.getHost() + ":" + locator.getPort(), lease, discovery);
        }
        discovery.terminate();
        throw new IOException("no lookup service of group '" + LookupService.GROUP + "' answered by multicast "
                + "within " + timeout.toSeconds() + " s. Was it started with 'cx lookup --multicast'? Many "
                + "networks (clouds, containers) carry no multicast: give --lookup HOST:PORT instead." + stopping);
    }

    public static RiverDiscovery connect(String hostPort) throws IOException {
        return connect(hostPort, DEFAULT_LEASE, Duration.ofSeconds(10));
    }

    @Override
    public Registration register(ServiceRecord service) throws IOException {
        ServiceItem item = new ServiceItem(null, new CxService(service.kind(), service.address()), entries(service));
        ServiceRegistration registration = registrar.register(item, lease.toMillis());
        return new LeasedRegistration(registration);
    }

    private static Entry[] entries(ServiceRecord service) {
        return new Entry[] {new CxServiceEntry(service), new Name(service.name())};
    }

    @Override
    public List<ServiceRecord> lookup(String kind) throws IOException {
        CxServiceEntry template = new CxServiceEntry();
        template.kind = kind;
        ServiceMatches matches = registrar.lookup(
                new ServiceTemplate(null, new Class<?>[] {CxService.class}, new Entry[] {template}), 10_000);
        List<ServiceRecord> found = new ArrayList<>();
        for (ServiceItem item : matches.items) {
            if (item.service == null) {
                continue; // River could not unmarshal it: a different CX version; skip
            }
            for (Entry e : item.attributeSets) {
                if (e instanceof CxServiceEntry cx) {
                    found.add(cx.toRecord());
                }
            }
        }
        return found;
    }

    /** Lease renewals that succeeded, over all registrations. */
    public long renewed() {
        return renewed.get();
    }

    /** The lookup service's address, as found (for {@value #MULTICAST}: the address it answered from). */
    public String lookupAddress() {
        return lookupAddress;
    }

    @Override
    public void close() {
        renewals.shutdownNow();
        if (multicast != null) {
            multicast.terminate();
        }
    }

    /** A registration whose lease is renewed every third of its duration until closed. */
    private final class LeasedRegistration implements Registration {
        private final ServiceRegistration registration;
        private final ScheduledFuture<?> renewal;

        LeasedRegistration(ServiceRegistration registration) {
            this.registration = registration;
            long period = Math.max(100, lease.toMillis() / 3);
            this.renewal = renewals.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
        }

        private void renew() {
            try {
                registration.getLease().renew(lease.toMillis());
                renewed.incrementAndGet();
            } catch (Exception e) {
                LOG.warn("cannot renew the registration with the lookup service at {}: {}", lookupAddress,
                        e.toString());
            }
        }

        @Override
        public void update(ServiceRecord service) throws IOException {
            try {
                registration.setAttributes(entries(service));
            } catch (net.jini.core.lease.UnknownLeaseException e) {
                throw new IOException("the registration expired at " + lookupAddress, e);
            }
        }

        @Override
        public void close() {
            renewal.cancel(false);
            try {
                registration.getLease().cancel();
            } catch (RemoteException | net.jini.core.lease.UnknownLeaseException e) {
                // gone already
            }
        }
    }
}
