package org.cx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.cx.security.Authority;
import org.cx.security.CredentialRole;
import org.cx.security.JmxLogin;
import org.cx.security.RevocationList;
import org.cx.security.Tls;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real JMX connector over RMI on loopback: who may connect, who may only read. */
class JmxAgentTest {
    private static final ObjectName MEMORY = name("java.lang:type=Memory");
    @TempDir
    static Path dir;
    private static Authority authority;
    private static String url;

    private static ObjectName name(String n) {
        try {
            return new ObjectName(n);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        authority = Authority.create(dir.resolve("ca"), "test");
        // a producer's connector: clients trust any credential of the network, not only servers'
        url = JmxAgent.start("127.0.0.1", "127.0.0.1", 0, tls(authority, CredentialRole.PRODUCER, "p1"));
        JmxTls.clientCredential(tls(authority, CredentialRole.USER, "status"));
    }

    private static Tls tls(Authority from, CredentialRole role, String name) throws Exception {
        return Tls.of(from.issue(role, name, Duration.ofDays(1)), RevocationList.none());
    }

    private static JMXConnector login(Object credentials) throws Exception {
        return JMXConnectorFactory.connect(new JMXServiceURL(url),
                credentials == null ? null : Map.of(JMXConnector.CREDENTIALS, credentials));
    }

    @Test
    void aUserReadsButMayNotInvokeAnAdminMay() throws Exception {
        try (JMXConnector user = login(JmxLogin.credentials(tls(authority, CredentialRole.USER, "alice")))) {
            MBeanServerConnection c = user.getMBeanServerConnection();
            assertNotNull(c.getAttribute(MEMORY, "HeapMemoryUsage"));
            SecurityException refused = assertThrows(SecurityException.class, () -> c.invoke(MEMORY, "gc", null, null));
            assertTrue(refused.getMessage().contains("needs an admin credential"), refused.getMessage());
        }
        try (JMXConnector admin = login(JmxLogin.credentials(tls(authority, CredentialRole.ADMIN, "root")))) {
            admin.getMBeanServerConnection().invoke(MEMORY, "gc", null, null);
        }
    }

    /** The connector's sockets as RMI uses them: TLS, and only with a credential of the network at both ends. */
    @Test
    void connectorSocketsAreTlsWithTheNetworksCredentialsAtBothEnds() throws Exception {
        java.rmi.server.RMIServerSocketFactory sockets = JmxTls.serverSockets(tls(authority, CredentialRole.SERVER,
                "s2"), java.net.InetAddress.getLoopbackAddress());
        try (java.net.ServerSocket server = sockets.createServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try (java.net.Socket s = server.accept()) {
                        ((javax.net.ssl.SSLSocket) s).startHandshake();
                        s.getOutputStream().write(42);
                    } catch (java.io.IOException e) {
                        // a client that failed the handshake; the next one is served
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            JmxTls.ClientSockets client = new JmxTls.ClientSockets();
            try (java.net.Socket ok = client.createSocket("127.0.0.1", server.getLocalPort())) {
                assertEquals(42, ok.getInputStream().read(), "a credential of the network gets through");
            }
            JmxTls.clientCredential(tls(Authority.create(dir.resolve("elsewhere"), "elsewhere"),
                    CredentialRole.ADMIN, "eve"));
            try {
                assertThrows(java.io.IOException.class, () -> client.createSocket("127.0.0.1",
                        server.getLocalPort()).getInputStream().read(), "another network's credential does not");
            } finally {
                JmxTls.clientCredential(tls(authority, CredentialRole.USER, "status"));
            }
            try (java.net.Socket plain = new java.net.Socket("127.0.0.1", server.getLocalPort())) {
                plain.getOutputStream().write("plain RMI".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                int answer = plain.getInputStream().read();
                assertTrue(answer != 42, "a plain client gets no answer, only a TLS alert: " + answer);
            }
        }
    }

    @Test
    void noLoginOrAStrangersIsRefused() throws Exception {
        assertThrows(SecurityException.class, () -> login(null).close());
        Authority other = Authority.create(dir.resolve("other"), "other");
        SecurityException stranger = assertThrows(SecurityException.class,
                () -> login(JmxLogin.credentials(tls(other, CredentialRole.ADMIN, "eve"))).close());
        assertTrue(stranger.getMessage().contains("not issued by this network's authority"), stranger.getMessage());
    }
}
