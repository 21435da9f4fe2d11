package org.cx.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.RMIServerSocketFactory;
import java.util.Map;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;

/**
 * A JMX connector for this process's MBeans, bound to one address, so that {@code cx status} and jconsole can
 * connect ({@code jconsole service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi}). Local jconsole can also attach by
 * process id without it.
 */
final class JmxAgent {
    private JmxAgent() {
    }

    /** Starts the connector on {@code host:port} (0: any free port); returns its service URL. */
    static String start(String host, int port) throws IOException {
        InetAddress bind = InetAddress.getByName(host);
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", host); // what RMI stubs tell clients to call
        }
        RMIServerSocketFactory sockets = p -> new ServerSocket(p, 50, bind);
        // Port 0: the registry binds a free port itself (no probe-then-bind race); its socket says which.
        ServerSocket[] registrySocket = new ServerSocket[1];
        LocateRegistry.createRegistry(port, null, p -> registrySocket[0] = new ServerSocket(p, 50, bind));
        int registryPort = registrySocket[0].getLocalPort();
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + registryPort
                + "/jmxrmi");
        JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(url,
                Map.of(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, sockets),
                ManagementFactory.getPlatformMBeanServer());
        server.start();
        return url.toString();
    }
}
