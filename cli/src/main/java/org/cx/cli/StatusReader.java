package org.cx.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.cx.consumer.NetworkProbe;
import org.cx.security.JmxLogin;
import org.cx.security.Tls;
import org.cx.wire.Message;

/**
 * Reads a whole network's state for {@code cx status} and the dashboard: the primary root names the servers and
 * their JMX addresses; each server's MBeans give its state, its computations and its producers, whose own MBeans give
 * theirs. Keeps its JMX connections between views; close it to close them.
 */
final class StatusReader implements AutoCloseable {
    /** The credential it logs in with (null: plain). */
    private final Tls tls;
    private final Map<String, MBeanServerConnection> connections = new HashMap<>();
    private final List<JMXConnector> connectors = new ArrayList<>();
    private final io.netty.channel.EventLoopGroup probes = org.cx.wire.EventLoops.create("cx-status", 1);

    StatusReader(Tls tls) {
        this.tls = tls;
    }

    /**
     * As {@link #StatusReader(Tls)}, inside the process whose JMX connector is at {@code ownJmx}: its own MBeans are
     * read from the platform MBean server, not through its connector (no RMI, no TLS).
     */
    StatusReader(Tls tls, String ownJmx) {
        this(tls);
        if (ownJmx != null && !ownJmx.isEmpty()) {
            connections.put(ownJmx, java.lang.management.ManagementFactory.getPlatformMBeanServer());
        }
    }

    /** One view of the network. */
    synchronized StatusView view(String root) throws IOException {
        return view(NetworkProbe.status(probes, root, tls));
    }

    /**
     * One view of the network that {@code server} (in this process) belongs to: the root's view from the server
     * itself when it is the root, else asked of the root.
     */
    synchronized StatusView view(org.cx.server.TaskServerNode server) throws IOException {
        Message here = server.networkStatusHere();
        return view(here instanceof Message.NetworkStatus s ? s
                : NetworkProbe.status(probes, ((Message.Redirect) here).address(), tls));
    }

    /** One view of the network whose root described it as {@code net}, from the MBeans of its servers. */
    private StatusView view(Message.NetworkStatus net) throws IOException {
        List<StatusView.Server> servers = new ArrayList<>();
        List<StatusView.Producer> producers = new ArrayList<>();
        List<StatusView.Computation> computations = new ArrayList<>();
        java.util.TreeSet<String> events = new java.util.TreeSet<>(); // "TIME what": by time, each once
        Map<Integer, String> byId = new HashMap<>();
        for (Message.ServerStatus s : net.servers()) {
            byId.put(s.id(), s.name());
        }
        for (Message.ServerStatus s : net.servers()) {
            MBeanServerConnection c = connect(s.jmx());
            ObjectName name = c == null ? null : find(c, "org.cx:type=TaskServer,*", "Address", s.address());
            if (name == null) {
                servers.add(new StatusView.Server(s.position(), s.name(), s.address(), names(s.mirrorGroup(), byId),
                        null, null, null, null, null, null, "no JMX: started without it, or unreachable"));
                continue;
            }
            StatusView.Server row;
            try {
                row = new StatusView.Server(s.position(), s.name(), s.address(),
                        names(c.getAttribute(name, "MirrorGroup"), byId),
                        names(c.getAttribute(name, "Neighbours"), byId),
                        (Integer) c.getAttribute(name, "ReadyTasks"), (Integer) c.getAttribute(name, "UnreadyTasks"),
                        (Integer) c.getAttribute(name, "RunningTasks"), (Integer) c.getAttribute(name, "Producers"),
                        (Double) c.getAttribute(name, "TasksCompletedPerSecond"), null);
                events.addAll(java.util.Arrays.asList((String[]) c.getAttribute(name, "RecentEvents")));
                for (CompositeData p : (CompositeData[]) c.getAttribute(name, "ProducerDetails")) {
                    producers.add(producer(s.name(), p));
                }
            } catch (javax.management.JMException e) {
                row = new StatusView.Server(s.position(), s.name(), s.address(), null, null, null, null, null,
                        null, null, "MBeans unreadable: " + e.getMessage());
            }
            servers.add(row);
            String key = ObjectName.quote(s.name() + "@" + portOf(s.address()));
            for (ObjectName comp : c.queryNames(computationsOf(key), null)) {
                StatusView.Computation read = computation(c, comp, s.name());
                if (read != null) {
                    computations.add(read);
                }
            }
        }
        List<String> recent = new ArrayList<>(events);
        return new StatusView(net.epoch(), servers.size() > 1 && net.tolerant(), servers, producers, computations,
                recent.subList(Math.max(0, recent.size() - 20), recent.size()));
    }

    /** The pattern of the computation MBeans of the server whose quoted key is given. */
    private static ObjectName computationsOf(String quotedServerKey) {
        try {
            return new ObjectName("org.cx:type=Computation,server=" + quotedServerKey + ",*");
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(quotedServerKey, e); // a quoted value is always well formed
        }
    }

    /** A computation's row, or null if it left between being listed and being read (its MBean is gone). */
    static StatusView.Computation computation(MBeanServerConnection c, ObjectName comp, String server)
            throws IOException {
        try {
            return new StatusView.Computation(String.valueOf(c.getAttribute(comp, "Id")), server,
                    String.valueOf(c.getAttribute(comp, "Phase")), (Long) c.getAttribute(comp, "TasksDone"),
                    (Long) c.getAttribute(comp, "TasksKnown"), (Double) c.getAttribute(comp, "ElapsedSeconds"),
                    Boolean.TRUE.equals(c.getAttribute(comp, "Origin")),
                    Boolean.TRUE.equals(c.getAttribute(comp, "Stalled"))
                            ? (String) c.getAttribute(comp, "Diagnosis") : null);
        } catch (javax.management.JMException e) {
            return null;
        }
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

    /** Server ids ({@code [2, 3]}) as the servers' names ({@code [s1,s2]}); an id no server has as {@code #id}. */
    private static String names(Object ids, Map<Integer, String> byId) {
        int[] values = ids instanceof Integer[] a ? java.util.Arrays.stream(a).mapToInt(Integer::intValue).toArray()
                : ids instanceof int[] a ? a : null;
        if (values == null) {
            return String.valueOf(ids);
        }
        return java.util.Arrays.stream(values).mapToObj(i -> byId.getOrDefault(i, "#" + i))
                .collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }

    private static String portOf(String address) {
        return address.substring(address.lastIndexOf(':') + 1);
    }

    @Override
    public synchronized void close() {
        for (JMXConnector c : connectors) {
            try {
                c.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        connectors.clear();
        connections.clear();
        probes.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
