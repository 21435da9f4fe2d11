package org.cx.system;

import static org.cx.system.Cli.cx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.cx.cli.Cx;
import org.cx.security.Authority;
import org.cx.testing.ChildProcess;
import org.cx.system.Cli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The multi-machine steps of docs/security.md, as separate processes with explicit credentials: make an authority,
 * issue credentials, compute with them, revoke one, and see it refused on its next connection.
 */
class CredentialsTest {
    @TempDir
    Path dir;

    private void issue(String ca, String role, String name) {
        Run r = cx("keys", "issue", role, name, "--authority", ca, "--out", dir.resolve(role + "-" + name).toString());
        assertEquals(0, r.exit(), r.err());
    }

    @Test
    void issuedCredentialsComputeAndARevokedOneIsRefused() throws Exception {
        String ca = dir.resolve("ca").toString();
        assertEquals(0, cx("keys", "init", "--authority", ca, "--network", "lab").exit());
        issue(ca, "server", "s1");
        issue(ca, "producer", "pc1");
        issue(ca, "producer", "pc2");
        issue(ca, "user", "alice");
        try (ChildProcess server = ChildProcess.start("s1", Cx.class.getName(), "server", "--port", "0", "--no-jmx",
                "--credentials", dir.resolve("server-s1").toString())) {
            String line = server.awaitLine("listening on", Duration.ofSeconds(30));
            String address = line.substring(line.lastIndexOf(' ') + 1);
            try (ChildProcess producer = ChildProcess.start("pc1", Cx.class.getName(), "producer", "--server",
                    address, "--no-jmx", "--credentials", dir.resolve("producer-pc1").toString())) {
                producer.awaitLine("attached to", Duration.ofSeconds(30));
                Run r = cx("run", "fib", "--server", address, "--n", "12", "--credentials",
                        dir.resolve("user-alice").toString());
                assertEquals(0, r.exit(), r.err());
                assertTrue(r.out().contains("F(12) = 144"), r.out());
            }

            Run stranger = cx("run", "fib", "--server", address, "--n", "5", "--credentials",
                    strangerCredential().toString());
            assertNotEquals(0, stranger.exit());
            assertTrue(stranger.err().contains("not issued by this network's authority"), stranger.err());

            assertEquals(0, cx("keys", "revoke", "pc2", "--authority", ca).exit());
            Files.copy(Path.of(ca, Authority.REVOKED), dir.resolve("server-s1").resolve(Authority.REVOKED),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (ChildProcess revoked = ChildProcess.start("pc2", Cx.class.getName(), "producer", "--server",
                    address, "--no-jmx", "--credentials", dir.resolve("producer-pc2").toString())) {
                revoked.awaitLine("TLS handshake failed", Duration.ofSeconds(30));
                server.awaitLine("the credential of producer pc2", Duration.ofSeconds(30));
            }
        }
    }

    private Path strangerCredential() {
        String other = dir.resolve("other-ca").toString();
        assertEquals(0, cx("keys", "init", "--authority", other, "--network", "elsewhere").exit());
        Path out = dir.resolve("user-eve");
        assertEquals(0, cx("keys", "issue", "user", "eve", "--authority", other, "--out", out.toString()).exit());
        return out;
    }
}
