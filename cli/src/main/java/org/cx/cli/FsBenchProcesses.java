package org.cx.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.fs.FsClient;

/**
 * The processes a file service benchmark starts: name services and file servers ({@code cx fs} in JVMs of their own,
 * with this one's class path and CX home), and whatever else it spawns; all stopped at the end, newest first.
 */
final class FsBenchProcesses {
    private final Path scratch;
    private final boolean insecure;
    private final List<Process> processes = new ArrayList<>();

    /** @param scratch where the services keep their data; {@code insecure}: plain connections */
    FsBenchProcesses(Path scratch, boolean insecure) {
        this.scratch = scratch;
        this.insecure = insecure;
    }

    /** Starts {@code java -cp (this class path) ARGS}. */
    Process spawn(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx512m"));
        if (System.getProperty("cx.home") != null) {
            command.add("-Dcx.home=" + System.getProperty("cx.home"));
        }
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(p);
        return p;
    }

    /** The first line of {@code p}'s output that contains {@code text}; the rest is drained on a thread. */
    static String awaitLine(Process p, String text) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            if (line.contains(text)) {
                Thread.ofVirtual().start(() -> {
                    try {
                        while (r.readLine() != null) {
                            // drained
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                });
                return line;
            }
        }
        throw new IOException("a process ended before printing '" + text + "'");
    }

    /**
     * A name service (data in SCRATCH/{@code name}) and {@code servers} file servers held to {@code limit} bytes/s
     * (0: none); returns the name service's address.
     */
    String start(String name, int servers, long limit) throws IOException {
        List<String> security = insecure ? List.of("--insecure") : List.of();
        List<String> args = new ArrayList<>(List.of(Cx.class.getName(), "fs", "names", "--port", "0", "--data",
                scratch.resolve(name).toString()));
        args.addAll(security);
        String line = awaitLine(spawn(args.toArray(String[]::new)), "listening on");
        String names = line.replaceAll(".*listening on (\\S+?),.*", "$1");
        for (int i = 0; i < servers; i++) {
            Path root = Files.createDirectories(scratch.resolve(name + "-disk" + i));
            List<String> serve = new ArrayList<>(List.of(Cx.class.getName(), "fs", "serve", "--root", root.toString(),
                    "--names", names));
            if (limit > 0) {
                serve.addAll(List.of("--throttle", Long.toString(limit)));
            }
            serve.addAll(security);
            awaitLine(spawn(serve.toArray(String[]::new)), "exporting");
        }
        return names;
    }

    static void awaitServers(FsClient fs, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fs.servers().stream().filter(FsClient.ServerInfo::alive).count() < n) {
            if (System.nanoTime() > deadline) {
                throw new IOException(n + " file servers did not register in 30 s");
            }
            Thread.sleep(50); // polling a process we started; not a test
        }
    }

    /**
     * Removes {@code dir} and everything in it that can be removed: an entry that cannot be read (a mount point whose
     * mount ended badly) is skipped, not fatal.
     */
    static void deleteTree(Path dir) throws IOException {
        Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file,
                                                           java.nio.file.attribute.BasicFileAttributes attrs) {
                file.toFile().delete();
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path d, IOException e) {
                d.toFile().delete();
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }

    /** Stops every process, newest first (a mount before its file servers: SIGTERM lets it unmount). */
    void stopAll() throws InterruptedException {
        for (Process p : processes.reversed()) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        processes.clear();
    }
}
