package org.cx.system;

import static org.cx.system.Cli.cx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The volunteer's path: the self-contained distribution is built ({@code cx dist}), unpacked into a temporary prefix,
 * and its {@code cx producer install} starts a producer that runs a computation; {@code uninstall} stops it. Here
 * systemd is not PID 1, so the producer is a plain process; the unit it would run as is checked by
 * {@code systemd-analyze verify} where that exists. The unpacked {@code bin/cx} alone then starts a server and a
 * producer and runs {@code cx run fib} (the server also with the JDK's own management agent, password logins); and so
 * does the OCI image, unpacked and run in a bubblewrap container.
 */
class DistributionTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private record Result(int exit, String output) {
    }

    private Result run(Path cx, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(cx.toString()));
        command.addAll(List.of(args));
        return run(command);
    }

    private Result run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("CX_HOME", System.getProperty("cx.home", dir.resolve("home").toString()));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        return new Result(p.exitValue(), out);
    }

    @Test
    void theDistributionInstallsAProducerThatRunsAComputation() throws Exception {
        boolean deb = onPath("dpkg-deb") && onPath("fakeroot");
        boolean image = onPath("bwrap");
        List<String> distArgs = new ArrayList<>(List.of("dist", "--out", dir.resolve("dist").toString()));
        if (deb) {
            distArgs.add("--deb");
        }
        if (image) {
            distArgs.add("--image");
        }
        Cli.Run dist = cx(distArgs.toArray(String[]::new));
        assertEquals(0, dist.exit(), dist.err());
        Path prefix = Files.createDirectories(dir.resolve("opt"));
        Process tar = new ProcessBuilder("tar", "-xzf", dir.resolve("dist").resolve("cx-0.1.0.tar.gz").toString(),
                "-C", prefix.toString()).inheritIO().start();
        assertEquals(0, tar.waitFor());
        Path cx = prefix.resolve("cx-0.1.0").resolve("bin").resolve("cx");
        assertTrue(Files.isExecutable(prefix.resolve("cx-0.1.0/runtime/bin/java")), "it brings its own Java");

        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("volunteers"), 0, 1, true);
             Consumer consumer = cluster.consumer()) {
            Result wrong = run(cx, "producer", "install", "--prefix", dir.resolve("root").toString(), "--server",
                    "127.0.0.1:" + cluster.server().port(), "--wokers", "2");
            assertEquals(2, wrong.exit(), wrong.output());
            assertTrue(wrong.output().contains("the producer would refuse its options: Unknown options: '--wokers'"),
                    wrong.output());

            Result installed = run(cx, "producer", "install", "--prefix", dir.resolve("root").toString(),
                    "--name", "installed", "--server", "127.0.0.1:" + cluster.server().port(), "--workers", "2",
                    "--task-isolation", "process", "--no-jmx");
            assertEquals(0, installed.exit(), installed.output());
            Path unit;
            try (var files = Files.walk(dir.resolve("root"))) {
                unit = files.filter(f -> f.getFileName().toString().equals("cx-producer.service")).findFirst()
                        .orElseThrow();
            }
            assertTrue(Files.readString(unit).contains("ExecStart=" + cx + " producer --server"), unit.toString());
            verifyUnit(unit);

            Await.until("the installed producer to attach", WAIT, () -> cluster.server().status().producers() == 1);
            assertEquals(Fib.value(15), consumer.<Long>submit(new Fib(15)).result().get(60, TimeUnit.SECONDS));

            Result uninstalled = run(cx, "producer", "uninstall", "--prefix", dir.resolve("root").toString(),
                    "--name", "installed");
            assertEquals(0, uninstalled.exit(), uninstalled.output());
            Await.until("the producer to leave", WAIT, () -> cluster.server().status().producers() == 0);
            assertTrue(Files.notExists(unit));
        }
        networkRuns(List.of(cx.toString()), "the tarball", jdkAgent());
        if (image) {
            networkRuns(Images.unpacked(dir.resolve("dist").resolve("cx-0.1.0-image.tar"), dir.resolve("rootfs")),
                    "the image", null);
        } else {
            System.out.println("DistributionTest: no bwrap here, so the image is neither built nor run");
        }
        if (deb) {
            debianPackageRuns(dir.resolve("dist").resolve("cx_0.1.0_amd64.deb"));
        } else {
            System.out.println("DistributionTest: no dpkg-deb or fakeroot here, so the Debian package is not built");
        }
    }

    /**
     * {@code cx} ({@code command}, as the tarball's {@code bin/cx} or the image's entry point) alone starts a server
     * (with its JMX connector) and a producer and runs {@code cx run fib}.
     */
    private void networkRuns(List<String> cx, String from, JdkAgent agent) throws Exception {
        String tag = from.replace("the ", "");
        Path serverLog = dir.resolve(tag + "-server.log");
        Process server = started(cx, serverLog, agent == null ? null : agent.javaOptions(), "server", "--port", "0",
                "--name", "from-" + tag);
        Process producer = null;
        try {
            String line = Await.value("the server from " + from + " listening", WAIT,
                    () -> lines(serverLog).stream().filter(l -> l.contains("listening on ")).findFirst()
                            .orElse(null), java.util.Objects::nonNull);
            String address = line.substring(line.indexOf("listening on ") + 13).split("[ ;]")[0];
            assertTrue(lines(serverLog).stream().anyMatch(l -> l.startsWith("JMX: service:jmx:rmi")),
                    "its JMX connector started: " + lines(serverLog));
            if (agent != null) {
                agent.check("from-" + tag);
            }
            Path producerLog = dir.resolve(tag + "-producer.log");
            producer = started(cx, producerLog, null, "producer", "--server", address, "--workers", "2",
                    "--no-jmx");
            Await.until("the producer from " + from + " attached", WAIT,
                    () -> lines(producerLog).stream().anyMatch(l -> l.contains("attached to")));
            List<String> fib = new ArrayList<>(cx);
            fib.addAll(List.of("run", "fib", "--server", address, "--n", "15"));
            Result result = run(fib);
            System.out.print(from + ": " + result.output());
            assertEquals(0, result.exit(), result.output());
            assertTrue(result.output().contains("F(15) = " + Fib.value(15)), result.output());
        } finally {
            server.destroy();
            if (producer != null) {
                producer.destroy();
            }
        }
    }

    /** {@code cx ARGS}, its output to {@code log}; {@code javaOptions} (null: none) in {@code CX_JAVA_OPTS}. */
    private Process started(List<String> cx, Path log, String javaOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>(cx);
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("CX_HOME", System.getProperty("cx.home", dir.resolve("home").toString()));
        if (javaOptions != null) {
            pb.environment().put("CX_JAVA_OPTS", javaOptions);
        }
        return pb.start();
    }

    /**
     * The JDK's own management agent, started by its system properties through {@code CX_JAVA_OPTS} beside cx's
     * connector, with password logins: what jconsole on another machine connects to.
     */
    private record JdkAgent(int port, Path passwords, Path access) {
        String javaOptions() {
            String p = "-Dcom.sun.management.jmxremote.";
            return p + "port=" + port + " " + p + "rmi.port=" + port + " " + p + "host=127.0.0.1 " + p + "ssl=false "
                    + p + "authenticate=true " + p + "password.file=" + passwords + " " + p + "access.file=" + access;
        }

        /** A login with the password reads the server's MBean; a login without one is refused. */
        void check(String serverName) throws Exception {
            javax.management.remote.JMXServiceURL url = new javax.management.remote.JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
            try (var connector = javax.management.remote.JMXConnectorFactory.connect(url, java.util.Map.of(
                    javax.management.remote.JMXConnector.CREDENTIALS, new String[] {"operator", "s3cret"}))) {
                var mbeans = connector.getMBeanServerConnection();
                var names = mbeans.queryNames(new javax.management.ObjectName("org.cx:type=TaskServer,*"), null);
                assertEquals(1, names.size(), "the server's MBean through the JDK's agent: " + names);
                assertEquals(serverName, mbeans.getAttribute(names.iterator().next(), "Name"));
            }
            Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                    () -> javax.management.remote.JMXConnectorFactory.connect(url).close());
            assertTrue(refused instanceof SecurityException, "no login, no access: " + refused);
        }
    }

    private JdkAgent jdkAgent() throws IOException {
        Path passwords = Files.writeString(dir.resolve("jmxremote.password"), "operator s3cret\n");
        Files.setPosixFilePermissions(passwords, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Path access = Files.writeString(dir.resolve("jmxremote.access"), "operator readonly\n");
        return new JdkAgent(ServerProcesses.freePort(), passwords, access);
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The package unpacks (as {@code dpkg -i} would, without installing it) to a {@code cx} that runs. */
    private void debianPackageRuns(Path deb) throws IOException, InterruptedException {
        Path root = dir.resolve("deb");
        Process unpack = new ProcessBuilder("dpkg-deb", "-x", deb.toString(), root.toString()).inheritIO().start();
        assertEquals(0, unpack.waitFor());
        Result version = run(root.resolve("opt/cx/bin/cx"), "--version");
        assertEquals(0, version.exit(), version.output());
        assertTrue(version.output().startsWith("cx 0.1.0 (protocol"), version.output());
    }

    private static boolean onPath(String program) {
        return java.util.Arrays.stream(System.getenv("PATH").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }

    /** {@code systemd-analyze verify} finds nothing to say about the unit (where systemd's tools are installed). */
    private static void verifyUnit(Path unit) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of("/usr/bin/systemd-analyze"))) {
            System.out.println("systemd-analyze is not installed here: the unit is not verified");
            return;
        }
        Process p = new ProcessBuilder("systemd-analyze", "verify", unit.toString()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        assertEquals("", out, "systemd-analyze verify " + unit);
    }
}
