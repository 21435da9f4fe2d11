package org.cx.discovery;

import com.sun.jini.reggie.TransientRegistrarImpl;
import com.sun.jini.start.LifeCycle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.RemoteException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An embedded, transient Apache River lookup service on {@code host:port}: unicast discovery, and multicast
 * discovery (member group {@value #GROUP}) only when asked for; its unicast listener and its remote calls bound to
 * {@code host}, no SecurityManager. What {@code cx lookup} runs and {@code cx demo} embeds.
 */
public final class LookupService implements AutoCloseable {
    /** The discovery group CX lookup services belong to, and the one multicast discovery asks for. */
    public static final String GROUP = "cx";

    /** How long {@link #close()} waits for River to stop the lookup service's threads and sockets. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);

    private final Registrar registrar;
    private final String host;

    /**
     * River's transient lookup service, constructed directly with configuration overrides. River stops it on a
     * thread of its own after {@code destroy()} returns; the life cycle it is given hears when that thread is done.
     */
    private static final class Registrar extends TransientRegistrarImpl {
        private final Stopped stopped;

        Registrar(String[] configuration, Stopped stopped) throws Exception {
            super(configuration, stopped);
            this.stopped = stopped;
        }
    }

    /** River's last step in stopping a lookup service is to unregister it from its life cycle. */
    private static final class Stopped implements LifeCycle {
        private final CountDownLatch done = new CountDownLatch(1);

        @Override
        public boolean unregister(Object impl) {
            done.countDown();
            return true;
        }
    }

    private LookupService(Registrar registrar, String host) {
        this.registrar = registrar;
        this.host = host;
    }

    /** River logs through java.util.logging; its INFO chatter is not for users. Held so it is not collected. */
    private static final Logger RIVER_LOG = Logger.getLogger("com.sun.jini");

    /** Starts a lookup service, unicast only; {@code port} 0 picks a free one. */
    public static LookupService start(String host, int port) throws IOException {
        return start(host, port, false);
    }

    /**
     * Starts a lookup service; {@code port} 0 picks a free one. With {@code multicast} it also announces itself
     * and answers multicast requests for group {@value #GROUP} on every multicast-capable interface (UDP port
     * 4160, groups 224.0.1.84/85), so that {@code --lookup multicast} finds it without an address.
     */
    public static LookupService start(String host, int port, boolean multicast) throws IOException {
        return start(host, host, port, 0, multicast);
    }

    /**
     * As {@link #start(String, int, boolean)}, bound to {@code host} and telling clients {@code advertise} (what they
     * reach this machine at, for a wildcard {@code host}); its remote calls on {@code callPort} (0: a free port).
     */
    public static LookupService start(String host, String advertise, int port, int callPort, boolean multicast)
            throws IOException {
        RiverCompat.install();
        RIVER_LOG.setLevel(Level.WARNING);
        if (port == 0) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(host))) {
                port = probe.getLocalPort(); // River takes 0 to mean its default, 4160
            }
        }
        String quoted = "\"" + advertise.replace("\"", "") + "\"";
        String bind = "\"" + host.replace("\"", "") + "\"";
        String component = "com.sun.jini.reggie.";
        List<String> configuration = new ArrayList<>(List.of(
            "-",
            component + "initialMemberGroups=new String[] {\"" + GROUP + "\"}",
            component + "initialLookupGroups=new String[] {}",
            component + "unicastDiscoveryHost=" + quoted,
            component + "initialUnicastDiscoveryPort=" + port,
            component + "serverSocketFactory=new org.cx.discovery.BoundServerSocketFactory(" + bind + ")",
            component + "serverExporter=new net.jini.jeri.BasicJeriExporter("
                    + "net.jini.jeri.tcp.TcpServerEndpoint.getInstance(" + quoted + ", " + callPort + ", null, "
                    + "new org.cx.discovery.BoundServerSocketFactory(" + bind + ")), "
                    + "new net.jini.jeri.BasicILFactory())",
            // On close, calls in progress get 5 s to finish, looked at every 0.1 s (River's default: every 10 s).
            component + "unexportTimeout=5000L",
            component + "unexportWait=100L"));
        if (!multicast) {
            // Without this entry River uses every multicast-capable interface; with none it uses no multicast.
            configuration.add(component + "multicastInterfaces=new java.net.NetworkInterface[] {}");
            // The same for the discovery of other lookup services inside it, which would listen for announcements.
            configuration.add("net.jini.discovery.LookupDiscovery.multicastInterfaces="
                    + "new java.net.NetworkInterface[] {}");
        }
        try {
            return new LookupService(new Registrar(configuration.toArray(String[]::new), new Stopped()), advertise);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot start a lookup service on " + host + ":" + port + ": " + e, e);
        }
    }

    public int port() {
        try {
            return registrar.getLocator().getPort();
        } catch (RemoteException e) {
            throw new IllegalStateException("the lookup service has stopped", e);
        }
    }

    /** {@code host:port}, what {@code --lookup} takes. */
    public String address() {
        return host + ":" + port();
    }

    /**
     * Stops the lookup service and waits until River has closed its sockets and ended its threads: until then it
     * would still answer multicast requests, with a registrar whose every call fails.
     */
    @Override
    public void close() {
        try {
            registrar.destroy();
        } catch (RemoteException e) {
            return; // already stopped
        }
        try {
            if (!registrar.stopped.done.await(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                RIVER_LOG.warning("the lookup service at " + host + " took over " + STOP_WAIT.toSeconds()
                        + " s to stop; going on without it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
