package org.cx.system;

import static org.cx.system.Cli.cx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cx.cli.Cx;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;

/**
 * A federated file service as a test starts it: {@code cx fs} processes (name services, file servers) whose data lie
 * under the test's directory, killed when the test is done; and the commands and client a user would call.
 */
final class FsProcesses {
    static final Duration WAIT = Duration.ofSeconds(60);

    private final Path dir;
    private final List<ChildProcess> processes = new ArrayList<>();

    FsProcesses(Path dir) {
        this.dir = dir;
    }

    /** Starts {@code cx fs ARGS} as a process named {@code name}. */
    ChildProcess start(String name, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of("fs"));
        all.addAll(List.of(args));
        ChildProcess p = ChildProcess.start(name, Cx.class.getName(), all.toArray(String[]::new));
        processes.add(p);
        return p;
    }

    /** A name service on {@code port} (0: any), its data in DIR/names; returns its address. */
    String names(int port) throws IOException {
        ChildProcess p = start("names", "names", "--data", dir.resolve("names").toString(), "--port",
                Integer.toString(port));
        String line = p.awaitLine("name service listening on ", WAIT);
        return line.replaceAll(".*listening on (\\S+?),.*", "$1");
    }

    /** A file server exporting DIR/{@code disk}, registered with {@code names}. */
    ChildProcess fileServer(String names, String disk, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("serve", "--root", Files.createDirectories(dir.resolve(disk))
                .toString(), "--names", names));
        args.addAll(List.of(more));
        ChildProcess p = start(disk, args.toArray(String[]::new));
        p.awaitLine("exporting", WAIT);
        return p;
    }

    /** Runs {@code cx fs ARGS[0] --names NAMES ARGS[1..]}. */
    static Cli.Run fs(String names, String... args) {
        List<String> all = new ArrayList<>(List.of("fs"));
        all.add(args[0]);
        all.addAll(List.of("--names", names));
        all.addAll(List.of(args).subList(1, args.length));
        return cx(all.toArray(String[]::new));
    }

    /** A client with this user's local credential. */
    static FsClient client(String names) throws IOException {
        return FsClient.connect(names, CxHome.local(CredentialRole.USER, false), null);
    }

    static void awaitServers(FsClient fs, int up) {
        Await.until(up + " file servers to be up", WAIT, () -> {
            try {
                return fs.servers().stream().filter(FsClient.ServerInfo::alive).count() == up;
            } catch (FsException e) {
                return false;
            }
        });
    }

    /** Waits until a file server's {@code incoming} directory holds a part file with bytes in it: a write under way. */
    static void awaitPartFile(Path incoming) {
        Await.until("the write to be under way", WAIT, () -> {
            try (var parts = Files.list(incoming)) {
                return parts.anyMatch(p -> p.toFile().length() > 0);
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** The processes started, in order. */
    List<ChildProcess> started() {
        return processes;
    }

    /** Kills every process started (kill -9). */
    void killAll() throws InterruptedException {
        for (ChildProcess p : processes) {
            p.kill();
        }
    }
}
