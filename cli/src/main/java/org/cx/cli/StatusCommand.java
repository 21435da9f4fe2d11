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
            "From their JMX MBeans, refreshing like top (Ctrl-C to stop), or once with --once. Into a pipe or a file,",
            "each snapshot follows the last (no screen codes); --json writes each as a line of JSON."})
final class StatusCommand extends Printing implements Callable<Integer> {

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "Any server of the network.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast", description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP)
    String lookup;

    @Option(names = "--once", description = "Print one snapshot and exit.")
    boolean once;

    @Option(names = "--json", description = "Print each snapshot as one line of JSON (servers, producers, "
            + "computations; a figure not given is null).")
    boolean json;

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
            boolean terminal = System.console() != null && !json;
            do {
                StatusView view = view(root);
                PrintWriter out = out();
                if (!once && terminal) {
                    out.print("\033[H\033[2J"); // clear the terminal, like top
                } else if (!once && !json) {
                    out.println("--- " + java.time.LocalTime.now().withNano(0));
                }
                out.print(json ? view.json() : view.text());
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
        return view(root).text();
    }

    /** One view of the network. */
    StatusView view(String root) throws IOException {
        if (!resolved) {
            tls = security.tls(CredentialRole.USER, false);
            resolved = true;
        }
        Message.NetworkStatus net = NetworkProbe.status(root, tls);
        List<StatusView.Server> servers = new ArrayList<>();
        List<StatusView.Producer> producers = new ArrayList<>();
        List<StatusView.Computation> computations = new ArrayList<>();
        for (Message.ServerStatus s : net.servers()) {
            MBeanServerConnection c = connect(s.jmx());
            ObjectName name = c == null ? null : find(c, "org.cx:type=TaskServer,*", "Address", s.address());
            if (name == null) {
                servers.add(new StatusView.Server(s.position(), s.name(), s.address(), null, null, null, null, null,
                        null, null, "no JMX: started without it, or unreachable"));
                continue;
            }
            try {
                servers.add(new StatusView.Server(s.position(), s.name(), s.address(),
                        list(c.getAttribute(name, "MirrorGroup")), list(c.getAttribute(name, "Neighbours")),
                        (Integer) c.getAttribute(name, "ReadyTasks"), (Integer) c.getAttribute(name, "UnreadyTasks"),
                        (Integer) c.getAttribute(name, "RunningTasks"), (Integer) c.getAttribute(name, "Producers"),
                        (Double) c.getAttribute(name, "TasksCompletedPerSecond"), null));
                for (CompositeData p : (CompositeData[]) c.getAttribute(name, "ProducerDetails")) {
                    producers.add(producer(s.name(), p));
                }
                String key = ObjectName.quote(s.name() + "@" + portOf(s.address()));
                for (ObjectName comp : c.queryNames(new ObjectName("org.cx:type=Computation,server=" + key + ",*"),
                        null)) {
                    computations.add(new StatusView.Computation(String.valueOf(c.getAttribute(comp, "Id")), s.name(),
                            String.valueOf(c.getAttribute(comp, "Phase")), (Long) c.getAttribute(comp, "TasksDone"),
                            (Long) c.getAttribute(comp, "TasksKnown"), (Double) c.getAttribute(comp, "ElapsedSeconds"),
                            Boolean.TRUE.equals(c.getAttribute(comp, "Origin")),
                            Boolean.TRUE.equals(c.getAttribute(comp, "Stalled"))
                                    ? (String) c.getAttribute(comp, "Diagnosis") : null));
                }
            } catch (javax.management.JMException e) {
                servers.add(new StatusView.Server(s.position(), s.name(), s.address(), null, null, null, null, null,
                        null, null, "MBeans unreadable: " + e.getMessage()));
            }
        }
        return new StatusView(net.epoch(), servers.size() > 1 && net.tolerant(), servers, producers, computations);
    }

    private StatusView.Producer producer(String serverName, CompositeData p) {
        String name = (String) p.get("name");
        MBeanServerConnection c = connect((String) p.get("jmx"));
        ObjectName bean = c == null ? null : find(c, "org.cx:type=Producer,*", "Name", name);
        Integer cached = null;
        Long run = null;
        Double idle = null;
        String note = "no JMX";
        if (bean != null) {
            try {
                cached = (Integer) c.getAttribute(bean, "CachedTasks");
                run = (Long) c.getAttribute(bean, "TasksRun");
                idle = 100 * (Double) c.getAttribute(bean, "IdleFraction");
                note = null;
            } catch (javax.management.JMException | IOException e) {
                note = "unreadable";
            }
        }
        return new StatusView.Producer(name, serverName, (Integer) p.get("workers"), cached, run, idle,
                (Integer) p.get("tasksHeld"), (Long) p.get("tasksCompleted"), note);
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
