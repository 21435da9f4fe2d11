package org.cx.producer;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command line of a worker process: this JDK's {@code java} with the worker's heap and memory limits and this
 * process's class path, running {@link WorkerMain}; inside bubblewrap for {@link TaskBox.Isolation#SANDBOX}, and
 * killed with its producer either way.
 *
 * <h2>The sandbox</h2>
 * New user, PID, network, IPC, UTS and cgroup namespaces ({@code --unshare-all}), user 65534 ("nobody") inside,
 * all capabilities dropped, its own session (no terminal to inject into), killed with its producer. Its file
 * system holds only {@code /usr} (the system's programs and libraries, read-only), the JDK and every class path
 * entry (read-only), a private {@code /tmp}, a minimal {@code /dev}, its own {@code /proc}, and the worker's scratch
 * directory, the one place it may write. No environment variables pass.
 */
final class WorkerCommand {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerCommand.class);
    private static volatile Boolean sandboxWorks;

    private final TaskBox.Isolation isolation;
    private final int heapMiB;
    private final double speed;
    private final int maxMessageBytes;
    private final String fsNames;

    /**
     * @param isolation {@link TaskBox.Isolation#SANDBOX} or {@link TaskBox.Isolation#PROCESS}
     * @param fsNames   the file service's name services its tasks reach through a relay; null: none
     */
    WorkerCommand(TaskBox.Isolation isolation, int heapMiB, double speed, int maxMessageBytes, String fsNames) {
        this.isolation = isolation;
        this.heapMiB = heapMiB;
        this.speed = speed;
        this.maxMessageBytes = maxMessageBytes;
        this.fsNames = fsNames;
    }

    TaskBox.Isolation isolation() {
        return isolation;
    }

    /** The heap a worker gets unless the owner's memory cap leaves less. */
    int heapMiB() {
        return heapMiB;
    }

    /** The command that starts a worker whose scratch directory is {@code scratch}. */
    List<String> command(Path scratch) {
        return command(scratch, heapMiB, null);
    }

    /**
     * The same, with a heap of {@code heap} MiB, and whose tasks reach the file service through the relay listening on
     * {@code relay} (null: they reach none).
     */
    List<String> command(Path scratch, int heap, Path relay) {
        List<String> java = new ArrayList<>(List.of(javaExecutable(),
                "-Xmx" + heap + "m", "-XX:MaxMetaspaceSize=256m",
                // the transport's buffers, and room for the chunks of the values it holds in memory (ValueStore)
                "-XX:MaxDirectMemorySize=" + (64 + heap / 2) + "m",
                "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-Djava.io.tmpdir=" + scratch, "-Duser.home=" + scratch));
        if (Runtime.version().feature() >= 24) {
            java.add("--sun-misc-unsafe-memory-access=allow"); // Kryo
        }
        if (relay != null) {
            java.addAll(List.of("-D" + WorkerMain.FS_RELAY + "=" + relay, "-D" + WorkerMain.FS_NAMES + "=" + fsNames));
        }
        java.addAll(List.of("-cp", String.join(File.pathSeparator, classPath()),
                WorkerMain.class.getName(), Double.toString(speed), Integer.toString(maxMessageBytes)));
        if (isolation != TaskBox.Isolation.SANDBOX) {
            if (diesWithItsProducer()) {
                java.addAll(0, DIE_WITH_PARENT);
            }
            return java;
        }
        List<String> wrapped = sandbox(scratch, relay == null ? null : relay.getParent());
        wrapped.addAll(java);
        return wrapped;
    }

    /** Bubblewrap's arguments, binding {@code scratch} and, unless null, the directory of the file service relay. */
    private static List<String> sandbox(Path scratch, Path relayDirectory) {
        // Mounts apply in order, each over the ones before: the private /tmp first, so that a class path or a
        // scratch directory under /tmp is bound over it rather than hidden by it.
        List<String> b = new ArrayList<>(List.of("bwrap", "--unshare-all", "--unshare-user", "--uid", "65534",
                "--gid", "65534", "--cap-drop", "ALL", "--new-session", "--die-with-parent", "--clearenv",
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", "/usr", "/usr"));
        for (String link : List.of("bin", "lib", "lib64", "sbin")) {
            Path p = Path.of("/" + link);
            if (Files.isSymbolicLink(p)) {
                b.addAll(List.of("--symlink", "usr/" + link, "/" + link));
            } else if (Files.isDirectory(p)) {
                b.addAll(List.of("--ro-bind", p.toString(), p.toString()));
            }
        }
        Set<String> readOnly = new LinkedHashSet<>();
        readOnly.add(javaHome());
        readOnly.addAll(classPath());
        for (String path : readOnly) {
            if (!path.startsWith("/usr/") && Files.exists(Path.of(path))) {
                b.addAll(List.of("--ro-bind", path, path));
            }
        }
        if (relayDirectory != null) {
            b.addAll(List.of("--bind", relayDirectory.toString(), relayDirectory.toString()));
        }
        b.addAll(List.of("--bind", scratch.toString(), scratch.toString(), "--chdir", scratch.toString(), "--"));
        return b;
    }

    /**
     * Resolves {@link TaskBox.Isolation#AUTO}: the sandbox if bubblewrap is here and can start a JVM on this machine
     * (it needs user namespaces), else plain worker processes, with a warning that says what that leaves open.
     */
    static TaskBox.Isolation resolve(TaskBox.Isolation asked) {
        if (asked != TaskBox.Isolation.AUTO) {
            if (asked == TaskBox.Isolation.SANDBOX && !sandboxWorks()) {
                throw new IllegalStateException("task isolation 'sandbox' needs bubblewrap (bwrap) with user "
                        + "namespaces, which does not work here: install it (Debian: apt install bubblewrap), "
                        + "or choose --task-isolation process");
            }
            return asked;
        }
        if (sandboxWorks()) {
            return TaskBox.Isolation.SANDBOX;
        }
        LOG.warn("task code runs in worker processes as user {} without an OS sandbox, so it can read what this user "
                + "can read and reach the network: install bubblewrap (Debian: apt install bubblewrap) to confine it",
                System.getProperty("user.name"));
        return TaskBox.Isolation.PROCESS;
    }

    /**
     * Outside the sandbox, util-linux's {@code setpriv} has the worker killed when its producer dies, as bubblewrap's
     * {@code --die-with-parent} does inside: a worker frozen by the owner's rules cannot notice its producer is gone
     * (a {@code kill -9} of {@code cx producer}), and would stay stopped, holding its memory, for good.
     */
    private static final List<String> DIE_WITH_PARENT = List.of("setpriv", "--pdeathsig", "KILL", "--");
    private static volatile Boolean diesWithItsProducer;

    /** Whether {@link #DIE_WITH_PARENT} runs a program here (tried once per process). */
    static boolean diesWithItsProducer() {
        Boolean works = diesWithItsProducer;
        if (works == null) {
            works = runs(new ArrayList<>(DIE_WITH_PARENT), "true");
            if (!works) {
                LOG.warn("setpriv --pdeathsig does not work here (Debian: util-linux): a worker process frozen "
                        + "when its producer is killed stays stopped until someone kills it");
            }
            diesWithItsProducer = works;
        }
        return works;
    }

    /** Whether {@code command} and then {@code more} start and exit 0 within 30 s. */
    private static boolean runs(List<String> command, String... more) {
        command.addAll(List.of(more));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false; // not on the path
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether bubblewrap starts {@code java -version} in the sandbox here (tried once per process). */
    static boolean sandboxWorks() {
        Boolean works = sandboxWorks;
        if (works == null) {
            works = tryTheSandbox();
            sandboxWorks = works;
        }
        return works;
    }

    private static boolean tryTheSandbox() {
        Path scratch = null;
        try {
            scratch = Files.createTempDirectory("cx-sandbox-probe");
            return runs(sandbox(scratch, null), javaExecutable(), "-Xshare:auto", "-version");
        } catch (IOException e) {
            return false; // no temporary directory for the probe
        } finally {
            if (scratch != null) {
                Scratch.delete(scratch);
            }
        }
    }

    private static String javaHome() {
        return Path.of(System.getProperty("java.home")).toAbsolutePath().normalize().toString();
    }

    private static String javaExecutable() {
        return Path.of(javaHome(), "bin", "java").toString();
    }

    /**
     * This process's class path, with the {@code Class-Path} of each jar's manifest followed (a launcher jar may
     * carry the whole class path that way), as absolute paths.
     */
    static List<String> classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                addWithManifest(Path.of(entry).toAbsolutePath().normalize(), entries);
            }
        }
        return new ArrayList<>(entries);
    }

    private static void addWithManifest(Path entry, Set<String> entries) {
        if (!entries.add(entry.toString()) || !entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return;
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            var manifest = jar.getManifest();
            String more = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (more == null) {
                return;
            }
            for (String ref : more.trim().split("\\s+")) {
                if (ref.isEmpty()) {
                    continue;
                }
                Path p = ref.startsWith("file:") ? Path.of(java.net.URI.create(ref)) : entry.getParent().resolve(ref);
                addWithManifest(p.toAbsolutePath().normalize(), entries);
            }
        } catch (IOException | IllegalArgumentException e) {
            // not a readable jar: it stays on the class path as given, and the JVM says what is wrong with it
        }
    }
}
