package org.cx.system;

import static org.cx.system.Cli.cx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Path;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.system.Cli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages a user once got that said too little, each now one line that says what happened, where, and what to do.
 */
class ErrorMessagesTest {

    private static void saysOnOneLine(Run r, String expected) {
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().strip().lines().filter(l -> !l.contains("WARNING: --insecure")).count(),
                "one line, no stack trace: " + r.err());
    }

    @Test
    void aServerOnATakenPortSaysWhichAndWhatToDo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            saysOnOneLine(cx("server", "--insecure", "--no-jmx", "--port", Integer.toString(port)),
                    "cx: cannot listen on 127.0.0.1:" + port + ": another process listens there (another cx server? "
                            + "choose another --port");
        }
    }

    @Test
    void aLookupServiceOnATakenPortSaysSoWithoutAStackTrace() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            saysOnOneLine(cx("lookup", "--port", Integer.toString(port)), "cx: cannot listen on 127.0.0.1:" + port
                    + ": another process listens there (another lookup service? choose another --port)");
        }
    }

    @Test
    void aHostThatIsNotThisMachinesSaysSoRatherThanBlamingThePort() {
        saysOnOneLine(cx("server", "--insecure", "--port", "0", "--host", "10.255.255.1"),
                "10.255.255.1 is not an address of this machine (give --host one of its addresses, or 0.0.0.0");
    }

    @Test
    void aServerThatIsNotThereIsNamedWithoutASlash() throws Exception {
        int port = ServerProcesses.freePort();
        Run r = cx("run", "fib", "--insecure", "--server", "127.0.0.1:" + port, "--n", "5");
        assertTrue(r.err().contains("cannot connect to 127.0.0.1:" + port + ": nothing listens there (connection "
                + "refused): is a cx server running at that address?"), r.err());
    }

    @Test
    void aLookupAddressThatIsATaskServerOrNothingSaysWhich() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults(null).withName("e"), 0, 1, false)) {
            String server = "127.0.0.1:" + cluster.server().port();
            Run atServer = cx("status", "--insecure", "--lookup", server);
            assertTrue(atServer.err().contains(server + " answers, but it is no lookup service (a task server? give "
                    + "a server with --server"), atServer.err());
            assertFalse(atServer.err().contains("start one with"), "not: start a lookup service on a taken port");
            int port = ServerProcesses.freePort();
            Run atNothing = cx("status", "--insecure", "--lookup", "127.0.0.1:" + port);
            assertTrue(atNothing.err().contains("nothing listens there (start one with 'cx lookup --port " + port),
                    atNothing.err());
            Run network = cx("network", "status", "--insecure", "--server", server);
            assertTrue(network.out().contains("tolerates no failure (a single server has no mirror"), network.out());
        }
    }

    @Test
    void anApplicationThatRefusesItsArgumentsIsNamed(@TempDir Path dir) throws Exception {
        Path app = CliTest.rangeSumJar(dir); // parses its argument with Long.parseLong
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults(null).withName("e"), 0, 1, false)) {
            Run r = cx("submit", app.toString(), "--insecure", "--server", "127.0.0.1:" + cluster.server().port(),
                    "abc");
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().contains("the application Main refused its arguments [abc]: For input string: "
                    + "\"abc\" (see its usage)"), r.err());
        }
    }

    /** Once "no main manifest attribute": the command's jar runs with {@code java -jar}, its jars beside it. */
    @Test
    void theCommandsJarRunsWithJavaJar() throws Exception {
        Path jar;
        try (var files = java.nio.file.Files.list(Path.of("..", "cli", "target"))) {
            jar = files.filter(p -> p.getFileName().toString().matches("cli-.*\\.jar")).findFirst().orElseThrow();
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("cx 0."), out);
    }
}
