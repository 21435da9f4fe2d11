package org.cx.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.cx.consumer.NetworkProbe;
import org.cx.security.CredentialRole;
import org.cx.security.JmxLogin;
import org.cx.security.Tls;
import org.cx.wire.Message;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cx status}: a live view of the whole network from its MBeans. The primary root names the servers and
 * their JMX addresses; each server's MBeans give its state, its computations and its producers, whose own MBeans
 * give theirs.
 */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows every server, producer and computation of a running network.",
            "From their JMX MBeans, refreshing like top (Ctrl-C to stop), or once with --once."})
final class StatusCommand extends Printing implements Callable<Integer> {

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "Any server of the network.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast", description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP)
    String lookup;

    @Option(names = "--once", description = "Print one snapshot and exit.")
    boolean once;

    @Option(names = "--interval", defaultValue = "2s", paramLabel = "DURATION",
            description = "Refresh period. Default: ${DEFAULT-VALUE}.")
    Duration interval;

    @Mixin
    SecurityOptions security;

    /** The credential this command logs in with (null with --insecure), once resolved. */
    private Tls tls;
    private boolean resolved;
    private final Map<String, MBeanServerConnection> connections = new HashMap<>();
    private final List<JMXConnector> connectors = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        tls = security.tls(CredentialRole.USER, false);
        resolved = true;
        String root = Lookups.serverOrLookup(server, lookup, false, tls);
        try {
            do {
                String view = snapshot(root);
                PrintWriter out = out();
                if (!once) {
                    out.print("\033[H\033[2J"); // clear the terminal, like top
                }
                out.print(view);
                out.flush();
                if (!once) {
                    Thread.sleep(interval.toMillis());
                }
            } while (!once);
        } finally {
            for (JMXConnector c : connectors) {
                try {
                    c.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
        return 0;
    }

    /** One view of the network, as text. */
    String snapshot(String root) throws IOException {
        if (!resolved) {
            tls = security.tls(CredentialRole.USER, false);
            resolved = true;
        }
        Message.NetworkStatus net = NetworkProbe.status(root, tls);
        StringBuilder servers = new StringBuilder();
        StringBuilder producers = new StringBuilder();
        StringBuilder computations = new StringBuilder();
        int producerCount = 0;
        for (Message.ServerStatus s : net.servers()) {
            MBeanServerConnection c = connect(s.jmx());
            ObjectName name = c == null ? null : find(c, "org.cx:type=TaskServer,*", "Address", s.address());
            if (name == null) {
                servers.append(String.format("%-4d %-16s %-22s (no JMX: started without it, or unreachable)%n",
                        s.position(), s.name(), s.address()));
                continue;
            }
            try {
                servers.append(String.format("%-4d %-16s %-22s %-10s %-14s %7d %7d %7d %9d %10.0f%n", s.position(),
                        s.name(), s.address(), list(c.getAttribute(name, "MirrorGroup")),
                        list(c.getAttribute(name, "Neighbours")), (Integer) c.getAttribute(name, "ReadyTasks"),
                        (Integer) c.getAttribute(name, "UnreadyTasks"), (Integer) c.getAttribute(name, "RunningTasks"),
                        (Integer) c.getAttribute(name, "Producers"),
                        (Double) c.getAttribute(name, "TasksCompletedPerSecond")));
                for (CompositeData p : (CompositeData[]) c.getAttribute(name, "ProducerDetails")) {
                    producerCount++;
                    producers.append(producerRow(s.name(), p));
                }
                String key = ObjectName.quote(s.name() + "@" + portOf(s.address()));
                for (ObjectName comp : c.queryNames(new ObjectName("org.cx:type=Computation,server=" + key + ",*"),
                        null)) {
                    computations.append(String.format("%-18s %-16s %-7s %9d %9d %9.1f %s%n",
                            c.getAttribute(comp, "Id"), s.name(), c.getAttribute(comp, "Phase"),
                            (Long) c.getAttribute(comp, "TasksDone"), (Long) c.getAttribute(comp, "TasksKnown"),
                            (Double) c.getAttribute(comp, "ElapsedSeconds"),
                            Boolean.TRUE.equals(c.getAttribute(comp, "Origin")) ? "origin" : ""));
                    if (Boolean.TRUE.equals(c.getAttribute(comp, "Stalled"))) {
                        computations.append("  ").append(((String) c.getAttribute(comp, "Diagnosis"))
                                .replace("\n", "\n  ")).append('\n');
                    }
                }
            } catch (javax.management.JMException e) {
                servers.append(String.format("%-4d %-16s %-22s (MBeans unreadable: %s)%n", s.position(), s.name(),
                        s.address(), e.getMessage()));
            }
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format("CX network: %d server(s), %d producer(s), epoch %d, %s%n%n", net.servers().length,
                producerCount, net.epoch(), net.tolerant() ? "tolerates another failure" : "NOT yet tolerant"));
        b.append(String.format("%-4s %-16s %-22s %-10s %-14s %7s %7s %7s %9s %10s%n", "pos", "server", "address",
                "mirrors", "neighbours", "ready", "unready", "running", "producers", "done/s"));
        b.append(servers).append('\n');
        b.append(String.format("%-20s %-16s %7s %7s %9s %7s %s%n", "producer", "server", "workers", "cached",
                "tasks-run", "idle", "(held, completed here)"));
        b.append(producers).append('\n');
        b.append(String.format("%-18s %-16s %-7s %9s %9s %9s%n", "computation", "server", "phase", "done", "known",
                "elapsed"));
        b.append(computations);
        return b.toString();
    }

    private String producerRow(String serverName, CompositeData p) {
        String name = (String) p.get("name");
        String jmx = (String) p.get("jmx");
        String own = "(no JMX)";
        MBeanServerConnection c = connect(jmx);
        ObjectName bean = c == null ? null : find(c, "org.cx:type=Producer,*", "Name", name);
        if (bean != null) {
            try {
                own = String.format("%7d %9d %6.1f%%", (Integer) c.getAttribute(bean, "CachedTasks"),
                        (Long) c.getAttribute(bean, "TasksRun"), 100 * (Double) c.getAttribute(bean, "IdleFraction"));
            } catch (javax.management.JMException | IOException e) {
                own = "(unreadable)";
            }
        }
        return String.format("%-20s %-16s %7d %s (%d, %d)%n", name, serverName, (Integer) p.get("workers"), own,
                (Integer) p.get("tasksHeld"), (Long) p.get("tasksCompleted"));
    }

    private MBeanServerConnection connect(String url) {
        if (url == null || url.isEmpty()) {
            return null;
        }
        MBeanServerConnection c = connections.get(url);
        if (c == null) {
            try {
                if (tls != null) {
                    JmxTls.clientCredential(tls);
                }
                JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url), tls == null ? null
                        : Map.of(JMXConnector.CREDENTIALS, JmxLogin.credentials(tls)));
                connectors.add(connector);
                c = connector.getMBeanServerConnection();
                connections.put(url, c);
            } catch (IOException | SecurityException e) {
                return null;
            }
        }
        return c;
    }

    /** The MBean matching {@code pattern} whose {@code attribute} equals {@code value}, or null. */
    private ObjectName find(MBeanServerConnection c, String pattern, String attribute, String value) {
        try {
            for (ObjectName n : c.queryNames(new ObjectName(pattern), null)) {
                if (value.equals(c.getAttribute(n, attribute))) {
                    return n;
                }
            }
        } catch (javax.management.JMException | IOException e) {
            connections.values().remove(c); // reconnect next time
        }
        return null;
    }

    private static String list(Object ids) {
        return ids instanceof Integer[] a ? java.util.Arrays.toString(a).replace(" ", "")
                : ids instanceof int[] a ? java.util.Arrays.toString(a).replace(" ", "") : String.valueOf(ids);
    }

    private static String portOf(String address) {
        return address.substring(address.lastIndexOf(':') + 1);
    }
}
