package org.cx.cli;

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
        url = JmxAgent.start("127.0.0.1", 0, tls(authority, CredentialRole.SERVER, "s1"));
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

    @Test
    void noLoginOrAStrangersIsRefused() throws Exception {
        assertThrows(SecurityException.class, () -> login(null).close());
        Authority other = Authority.create(dir.resolve("other"), "other");
        SecurityException stranger = assertThrows(SecurityException.class,
                () -> login(JmxLogin.credentials(tls(other, CredentialRole.ADMIN, "eve"))).close());
        assertTrue(stranger.getMessage().contains("not issued by this network's authority"), stranger.getMessage());
    }
}
