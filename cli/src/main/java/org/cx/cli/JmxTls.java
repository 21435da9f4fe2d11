package org.cx.cli;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.cx.security.Tls;

/**
 * TLS for JMX connectors: the connector's server sockets require a credential of the network, and the client
 * sockets RMI ships to clients in the connector's stubs present this process's. A client process names its
 * credential once ({@link #clientCredential}) before it connects; jconsole, which has none, attaches by process id.
 */
final class JmxTls {
    private static final String[] PROTOCOLS = {"TLSv1.3"};
    /** The credential this process's JMX clients present; null until named. */
    private static volatile SSLSocketFactory client;

    private JmxTls() {
    }

    /** JMX connections this process opens present {@code tls}'s credential and trust any of its network's. */
    static void clientCredential(Tls tls) throws IOException {
        client = tls.anyPeerSocketFactory();
    }

    /** Server sockets on {@code bind} that require the peer's credential of {@code tls}'s network. */
    static RMIServerSocketFactory serverSockets(Tls tls, InetAddress bind) {
        return port -> {
            SSLServerSocket s = (SSLServerSocket) tls.serverSocketFactory().createServerSocket(port, 50, bind);
            s.setNeedClientAuth(true);
            s.setEnabledProtocols(PROTOCOLS);
            return s;
        };
    }

    /** What a client's RMI uses to reach the connector: TLS with the client process's credential. */
    static final class ClientSockets implements RMIClientSocketFactory, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            SSLSocketFactory sockets = client;
            if (sockets == null) {
                throw new IOException("this JMX connector requires TLS with a CX credential of its network: use "
                        + "cx status, or attach jconsole by process id on the same machine");
            }
            SSLSocket s = (SSLSocket) sockets.createSocket(host, port);
            s.setEnabledProtocols(PROTOCOLS);
            s.startHandshake();
            return s;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ClientSockets; // RMI shares connections between equal factories
        }

        @Override
        public int hashCode() {
            return ClientSockets.class.hashCode();
        }
    }
}
