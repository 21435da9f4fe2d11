package org.cx.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the machine's own installation (Debian's {@code postgresql}), started for a test in a
 * directory of its own on a free loopback port, and stopped on close. As root it runs as the {@code postgres} user,
 * since PostgreSQL refuses to run as root.
 */
public final class Postgres implements AutoCloseable {
    /** The database user tests connect as; the server trusts loopback connections. */
    public static final String USER = "cx";

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres;

    private Postgres(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** The directory of PostgreSQL's programs on this machine, if it has them. */
    public static Optional<Path> installation() {
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(b -> Integer.parseInt(b.getParent().getFileName().toString()
                                .replaceAll("\\D", "0"))));
                if (newest.isPresent()) {
                    return newest;
                }
            } catch (IOException | NumberFormatException e) {
                // fall through to the path
            }
        }
        for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!p.isEmpty() && Files.isExecutable(Path.of(p, "initdb")) && Files.isExecutable(Path.of(p, "pg_ctl"))) {
                return Optional.of(Path.of(p));
            }
        }
        return Optional.empty();
    }

    /** Creates a database cluster and starts its server; IllegalStateException if there is no installation. */
    public static Postgres start() throws IOException, InterruptedException {
        Path bin = installation().orElseThrow(() -> new IllegalStateException("PostgreSQL is not installed "
                + "(apt-get install postgresql)"));
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("cx-postgres-");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Postgres pg = new Postgres(bin, dir, port, root);
        if (root) {
            run(List.of("chown", "postgres", dir.toString()), "give the directory to the postgres user");
        }
        pg.tool("initdb", "-D", dir.resolve("data").toString(), "-U", USER, "--auth=trust", "-E", "UTF8",
                "--no-sync");
        pg.tool("pg_ctl", "-D", dir.resolve("data").toString(), "-l", dir.resolve("log").toString(), "-w", "-t", "60",
                "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
        return pg;
    }

    /** Creates database {@code name}; returns its JDBC URL. */
    public String createDatabase(String name) throws IOException, InterruptedException {
        tool("createdb", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", USER, name);
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name;
    }

    public int port() {
        return port;
    }

    private void tool(String name, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(name).toString());
        command.addAll(List.of(args));
        run(command, name);
    }

    private static void run(List<String> command, String what) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(what + " failed (" + String.join(" ", command) + "):\n" + out);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            tool("pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
