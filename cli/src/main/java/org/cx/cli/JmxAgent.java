package org.cx.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.RMIServerSocketFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXPrincipal;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.MBeanServerForwarder;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.security.auth.Subject;
import org.cx.security.CredentialRole;
import org.cx.security.JmxLogin;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;

/**
 * A JMX connector for this process's MBeans, bound to one address, so that {@code cx status} and jconsole can
 * connect ({@code jconsole service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi}). With TLS on, the connector's
 * connections are TLS with credentials of the network on both ends ({@link JmxTls}; the RMI registry, which only
 * hands out the connector's stub, stays plain), and a client logs in with a CX credential of the network
 * ({@link JmxLogin}); any such login reads, and only an admin credential may set attributes, invoke operations or
 * create and remove MBeans. Local jconsole can still attach by process id, as the same OS user.
 */
final class JmxAgent {
    /** What a read-only login may not do. */
    private static final Set<String> WRITES = Set.of("setAttribute", "setAttributes", "invoke", "createMBean",
            "registerMBean", "unregisterMBean", "instantiate");
    private static final String ADMIN = CredentialRole.ADMIN.label() + ":";

    private JmxAgent() {
    }

    /**
     * Starts the connector on {@code host:port} (0: any free port); returns its service URL.
     *
     * @param advertised the host clients are told to call (the URL's and the RMI stubs')
     * @param tls        this process's credential, whose authority logins must come from; null: no login (plain
     *                   networks)
     */
    static String start(String host, String advertised, int port, Tls tls) throws IOException {
        InetAddress bind = InetAddress.getByName(host);
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", advertised); // what RMI stubs tell clients to call
        }
        RMIServerSocketFactory sockets = p -> new ServerSocket(p, 50, bind);
        // Port 0: the registry binds a free port itself (no probe-then-bind race); its socket says which.
        ServerSocket[] registrySocket = new ServerSocket[1];
        try {
            LocateRegistry.createRegistry(port, null, p -> registrySocket[0] = new ServerSocket(p, 50, bind));
        } catch (java.rmi.RemoteException e) {
            throw org.cx.wire.Listening.failure(host, port, e, "the JMX port: choose another --jmx-port, or --no-jmx");
        }
        int registryPort = registrySocket[0].getLocalPort();
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + advertised + ":" + registryPort
                + "/jmxrmi");
        Map<String, Object> env = new HashMap<>();
        env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, tls == null ? sockets
                : JmxTls.serverSockets(tls, bind));
        if (tls != null) {
            env.put(RMIConnectorServer.RMI_CLIENT_SOCKET_FACTORY_ATTRIBUTE, new JmxTls.ClientSockets());
            env.put(JMXConnectorServer.AUTHENTICATOR, (JMXAuthenticator) credentials -> {
                PeerIdentity who = JmxLogin.verify(credentials, tls);
                return new Subject(true, Set.of(new JMXPrincipal(who.role().label() + ":" + who.name())), Set.of(),
                        Set.of());
            });
        }
        JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(url, env,
                ManagementFactory.getPlatformMBeanServer());
        if (tls != null) {
            server.setMBeanServerForwarder(readOnlyUnlessAdmin());
        }
        server.start();
        return url.toString();
    }

    /** Passes every call on, refusing {@link #WRITES} to logins without an admin credential. */
    private static MBeanServerForwarder readOnlyUnlessAdmin() {
        InvocationHandler handler = new InvocationHandler() {
            private MBeanServer target;

            @Override
            public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) throws Throwable {
                switch (method.getName()) {
                    case "getMBeanServer" -> {
                        return target;
                    }
                    case "setMBeanServer" -> {
                        target = (MBeanServer) args[0];
                        return null;
                    }
                    default -> {
                        if (WRITES.contains(method.getName()) && !admin()) {
                            throw new SecurityException(method.getName() + " needs an admin credential; this login "
                                    + "may only read");
                        }
                    }
                }
                try {
                    return method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        };
        return (MBeanServerForwarder) Proxy.newProxyInstance(MBeanServerForwarder.class.getClassLoader(),
                new Class<?>[] {MBeanServerForwarder.class}, handler);
    }

    private static boolean admin() {
        Subject subject = Subject.current();
        return subject != null && subject.getPrincipals(JMXPrincipal.class).stream()
                .anyMatch(p -> p.getName().startsWith(ADMIN));
    }
}
