package org.cx.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.fs.Entry;
import org.cx.fs.FileServer;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsMounter;
import org.cx.fs.FsPath;
import org.cx.fs.NameService;
import org.cx.fs.Namespace;
import org.cx.fs.Sizes;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.wire.Listening;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx fs}: the federated file service, its processes and the commands that use it. */
@Command(name = "fs", mixinStandardHelpOptions = true,
        description = {"The federated file service: one namespace over files that stay on hosts' own disks.",
            "Start a name service (cx fs names) and file servers (cx fs serve --root DIR), then use the namespace",
            "with the Unix-like commands below. Paths in the namespace are written cx:/dir/file (or /dir/file",
            "where no local path is expected). Example, on one machine:",
            "  cx fs names &",
            "  cx fs serve --root /srv/cx-disk &",
            "  cx fs mkdir -p cx:/data && cx fs cp big.bin cx:/data/ && cx fs ls -l cx:/data"},
        subcommands = {FsCommand.Names.class, FsCommand.Serve.class, FsCommand.Ls.class, FsCommand.Stat.class,
            FsCommand.Cat.class, FsCopyCommands.Cp.class, FsCopyCommands.Get.class, FsCopyCommands.Put.class,
            FsCommand.Mv.class, FsCommand.Rm.class, FsCommand.Mkdir.class, FsCommand.Ln.class, FsCommand.Df.class,
            FsFsckCommand.class, FsCommand.Mount.class})
final class FsCommand extends Group {
    /** The name service's port unless told otherwise. */
    static final int NAMES_PORT = 7300;
    private static final String NAMES_HELP = "The name service, HOST:PORT (a primary and its standby: "
            + "HOST:PORT,HOST:PORT). Default: $CX_FS_NAMES, else 127.0.0.1:" + NAMES_PORT + ".";

    /** Waits until the process is told to stop (SIGTERM, Ctrl-C). */
    private static void awaitShutdown() throws InterruptedException {
        shutdownLatch().await();
    }

    /** A latch opened when this process is asked to stop (Ctrl-C, SIGTERM). */
    private static CountDownLatch shutdownLatch() {
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "cx-fs-shutdown"));
        return stop;
    }

    @Command(name = "names", mixinStandardHelpOptions = true,
            description = {"Runs the name service: it holds the namespace (directories, files, owners, modes, where",
                "the bytes are) durably in --data, and knows the file servers. A change is on disk before it is",
                "acknowledged; kill -9 and a restart lose nothing."})
    static final class Names extends Printing implements Callable<Integer> {
        @Option(names = "--data", paramLabel = "DIR",
                description = "Where the namespace is kept. Default: ~/.cx/fs/names (or under $CX_HOME).")
        Path data;

        @Option(names = "--host", defaultValue = "127.0.0.1",
                description = "Address to bind; use 0.0.0.0 to accept other machines. Default: ${DEFAULT-VALUE}.")
        String host;

        @Option(names = "--port", defaultValue = "" + NAMES_PORT,
                description = "TCP port (0 = any free one). Default: ${DEFAULT-VALUE}.")
        int port;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Register with this lookup service, so that file servers and clients started with "
                        + "--lookup find the name service." + Lookups.MULTICAST_HELP)
        String lookup;

        @Option(names = "--follow", paramLabel = "HOST:PORT",
                description = {"Runs as the standby of the name service at HOST:PORT: it keeps a copy of the "
                    + "namespace (every change is on both disks before it is acknowledged) and takes over when the "
                    + "primary has been unreachable for 3 s. Give clients and file servers both addresses: "
                    + "--names PRIMARY,STANDBY."})
        String follow;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            Tls tls = security.tls(CredentialRole.SERVER, true);
            Path dir = data != null ? data : CxHome.dir().resolve("fs").resolve(follow == null ? "names" : "standby");
            try (NameService names = NameService.start(new NameService.Config(dir, host, port, tls, follow));
                 RiverDiscovery discovery = lookup == null ? null : RiverDiscovery.connect(lookup);
                 Discovery.Registration registration = discovery == null ? null : discovery.register(
                         ServiceRecord.of(Discovery.FS_NAMES, "names",
                                 Listening.advertised(host, null) + ":" + names.port()))) {
                out().println((follow == null ? "name service" : "standby name service (of " + follow + ")")
                        + " listening on " + host + ":" + names.port() + ", namespace in " + dir
                        + (registration == null ? "" : "; registered with the lookup service at " + lookup));
                out().flush();
                if (follow != null) {
                    names.following().thenAccept(seq -> say("standby follows " + follow + " from record " + seq));
                }
                awaitShutdown();
            }
            return 0;
        }

        private void say(String line) {
            out().println(line);
            out().flush();
        }
    }

    /** Where the name service is: --names, or the one registered with --lookup, or $CX_FS_NAMES, or the default. */
    abstract static class NamesAddress extends Printing {
        @Option(names = "--names", paramLabel = "HOST:PORT", description = NAMES_HELP)
        String names;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find the name service at this lookup service." + Lookups.MULTICAST_HELP)
        String lookup;

        String namesAddress() throws IOException {
            if (names != null && lookup != null) {
                throw new IllegalArgumentException("give --names or --lookup, not both");
            }
            if (names != null) {
                return names;
            }
            if (lookup != null) {
                // The primary and its standby.
                return String.join(",", Lookups.required(lookup, Discovery.FS_NAMES, "name service", "cx fs names"));
            }
            String env = System.getenv("CX_FS_NAMES");
            return env != null && !env.isBlank() ? env : "127.0.0.1:" + NAMES_PORT;
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"Runs a file server: exports --root, a directory of this host's disk, to the federation.",
                "Files created through the federation are kept in ROOT/.cx-fs; files already under ROOT can be",
                "linked into the namespace where they are (cx fs ln). Nothing outside ROOT is ever served."})
    static final class Serve extends NamesAddress implements Callable<Integer> {
        @Option(names = "--root", required = true, paramLabel = "DIR", description = "The directory to export.")
        Path root;

        @Option(names = "--host", defaultValue = "127.0.0.1",
                description = "Address to bind; use 0.0.0.0 to accept other machines. Default: ${DEFAULT-VALUE}.")
        String host;

        @Option(names = "--port", defaultValue = "0", description = "TCP port (0 = any free one). "
                + "Default: ${DEFAULT-VALUE}.")
        int port;

        @Option(names = "--advertise", paramLabel = "HOST",
                description = "The host name or address others reach this server at. Default: --host, or this "
                        + "host's name when --host is a wildcard.")
        String advertise;

        @Option(names = "--throttle", paramLabel = "BYTES/S", description = "Holds reads and writes to this "
                + "bandwidth (e.g. 50M), standing in for a slower disk or link in experiments. Default: none.")
        String throttle;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            Tls tls = security.tls(CredentialRole.SERVER, true);
            long limit = throttle == null ? 0 : Sizes.parse(throttle);
            try (FileServer server = FileServer.start(new FileServer.Config(root, host, port, advertise,
                    namesAddress(), tls, limit))) {
                out().println("file server " + server.id() + " exporting " + root.toAbsolutePath() + " on "
                        + server.address() + (limit > 0 ? ", held to " + Sizes.human(limit) + "/s" : ""));
                out().flush();
                awaitShutdown();
            }
            return 0;
        }
    }

    /** A command that uses the namespace, as this user. */
    abstract static class Client extends NamesAddress implements Callable<Integer> {
        @Option(names = "--user", paramLabel = "NAME",
                description = "With --insecure: the user to act as (default: this login's name). With TLS the "
                        + "credential says who you are.")
        String user;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            Tls tls = security.tls(CredentialRole.USER, false);
            if (tls != null && user != null) {
                throw new IllegalArgumentException("--user is for --insecure: with TLS your credential names you");
            }
            try (FsClient fs = FsClient.connect(namesAddress(), tls, user != null ? user
                    : System.getProperty("user.name"))) {
                return run(fs);
            } catch (FsException e) {
                err().println("cx fs " + spec.name() + ": " + e.getMessage());
                return 1;
            }
        }

        abstract int run(FsClient fs) throws IOException;
    }

    static String namespacePath(String text) {
        return text.startsWith(FsPath.SCHEME) ? text.substring(FsPath.SCHEME.length()) : text;
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    static String longLine(String name, Entry e) {
        return String.format(Locale.ROOT, "%s %-10s %12d %s %s%s", e.modeString(), e.owner(), e.size(),
                TIME.format(Instant.ofEpochMilli(e.mtime())), name, e.linked() ? "  (linked in place)" : "");
    }

    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = {"Lists directories (or names files).", "Example: cx fs ls -l -R cx:/data"})
    static final class Ls extends Client {
        @Option(names = "-l", description = "Long format: mode, owner, size, time of the last change, name.")
        boolean longFormat;

        @Option(names = "-R", description = "Lists subdirectories too.")
        boolean recursive;

        @Parameters(paramLabel = "PATH", arity = "0..*", description = "What to list. Default: cx:/")
        List<String> paths = new ArrayList<>();

        @Override
        int run(FsClient fs) throws IOException {
            List<String> todo = paths.isEmpty() ? List.of("/") : paths;
            for (String p : todo) {
                list(fs, FsPath.of(namespacePath(p)), todo.size() > 1 || recursive);
            }
            return 0;
        }

        private void list(FsClient fs, FsPath path, boolean heading) throws IOException {
            List<Namespace.Named> entries = fs.list(path.toString());
            if (heading) {
                out().println(FsPath.SCHEME + path + ":");
            }
            for (Namespace.Named n : entries) {
                out().println(longFormat ? longLine(n.name(), n.entry()) : n.name());
            }
            if (recursive) {
                for (Namespace.Named n : entries) {
                    if (n.entry().directory()) {
                        out().println();
                        list(fs, path.child(n.name()), true);
                    }
                }
            }
        }
    }

    @Command(name = "stat", mixinStandardHelpOptions = true, description = "Says all the namespace knows of entries.")
    static final class Stat extends Client {
        @Parameters(paramLabel = "PATH", arity = "1..*")
        List<String> paths;

        @Override
        int run(FsClient fs) throws IOException {
            for (String p : paths) {
                Entry e = fs.stat(namespacePath(p));
                out().println(FsPath.SCHEME + FsPath.of(namespacePath(p)));
                out().println("  type:    " + (e.directory() ? "directory" : "file"));
                out().println("  mode:    " + e.modeString() + String.format(Locale.ROOT, " (%04o)", e.mode()));
                out().println("  owner:   " + e.owner());
                out().println("  changed: " + Instant.ofEpochMilli(e.mtime()));
                if (!e.directory()) {
                    out().println("  size:    " + e.size() + " bytes (" + Sizes.human(e.size()) + "), "
                            + e.crcs().size() + " blocks with CRC32C");
                    if (e.linked()) {
                        out().println("  bytes:   linked in place at " + e.columns().get(0).blob().substring(1)
                                + " on file server " + e.columns().get(0).servers().get(0));
                    } else {
                        out().println("  layout:  " + e.columns().size() + " stripe(s) of " + Sizes.human(
                                e.stripeSize()) + " units, " + e.columns().get(0).servers().size() + " replica(s)");
                        for (Entry.Column c : e.columns()) {
                            out().println("  column:  blob " + c.blob() + " on " + String.join(", ", c.servers()));
                        }
                        if (!e.only().isEmpty()) {
                            out().println("  only on: " + e.only());
                        }
                    }
                }
            }
            return 0;
        }
    }

    @Command(name = "cat", mixinStandardHelpOptions = true, description = "Writes files to standard output.")
    static final class Cat extends Client {
        @Parameters(paramLabel = "PATH", arity = "1..*")
        List<String> paths;

        @Override
        int run(FsClient fs) throws IOException {
            for (String p : paths) {
                fs.read(namespacePath(p), System.out, FsClient.Progress.NONE);
            }
            System.out.flush();
            return 0;
        }
    }

    @Command(name = "mv", mixinStandardHelpOptions = true,
            description = {"Renames or moves an entry within the namespace (the bytes stay where they are).",
                "Into an existing directory when TARGET is one."})
    static final class Mv extends Client {
        @Parameters(index = "0", paramLabel = "SOURCE")
        String source;

        @Parameters(index = "1", paramLabel = "TARGET")
        String target;

        @Override
        int run(FsClient fs) throws IOException {
            FsPath from = FsPath.of(namespacePath(source));
            FsPath to = FsPath.of(namespacePath(target));
            try {
                if (fs.stat(to.toString()).directory() && !fs.stat(from.toString()).directory()) {
                    to = to.child(from.name());
                }
            } catch (FsException e) {
                if (e.code() != FsException.Code.ENOENT) {
                    throw e;
                }
            }
            fs.rename(from.toString(), to.toString());
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true,
            description = {"Removes entries; their bytes are deleted from the file servers (a file linked in place",
                "stays on its host's disk)."})
    static final class Rm extends Client {
        @Option(names = {"-r", "-R"}, description = "Removes directories with their content.")
        boolean recursive;

        @Parameters(paramLabel = "PATH", arity = "1..*")
        List<String> paths;

        @Override
        int run(FsClient fs) throws IOException {
            for (String p : paths) {
                fs.remove(namespacePath(p), recursive);
            }
            return 0;
        }
    }

    @Command(name = "mkdir", mixinStandardHelpOptions = true, description = "Makes directories.")
    static final class Mkdir extends Client {
        @Option(names = "-p", description = "Makes parents as needed; no error if it exists.")
        boolean parents;

        @Parameters(paramLabel = "PATH", arity = "1..*")
        List<String> paths;

        @Override
        int run(FsClient fs) throws IOException {
            for (String p : paths) {
                fs.mkdir(namespacePath(p), parents);
            }
            return 0;
        }
    }

    @Command(name = "ln", mixinStandardHelpOptions = true,
            description = {"Links a file that already sits on a file server's disk into the namespace, without",
                "copying it. HOST-PATH is relative to that server's --root.",
                "Example: cx fs ln --server fs-1a2b3c4d5e6f genomes/nr.fasta cx:/db/nr.fasta"})
    static final class Ln extends Client {
        @Option(names = "--server", required = true, paramLabel = "ID|HOST:PORT",
                description = "The file server (its id or address, as cx fs df lists them).")
        String server;

        @Parameters(index = "0", paramLabel = "HOST-PATH")
        String hostPath;

        @Parameters(index = "1", paramLabel = "PATH")
        String path;

        @Override
        int run(FsClient fs) throws IOException {
            Entry e = fs.link(server, hostPath, namespacePath(path));
            out().println(longLine(FsPath.SCHEME + FsPath.of(namespacePath(path)), e));
            return 0;
        }
    }

    @Command(name = "mount", mixinStandardHelpOptions = true,
            description = {"Mounts the namespace at DIR through FUSE, so that unmodified programs (cat, grep, python)",
                "read and write federated files; runs until stopped (Ctrl-C, SIGTERM), then unmounts.",
                "A file written through the mount appears, whole, when the program closes it. Needs /dev/fuse and",
                "libfuse3 (Debian: apt install fuse3). Example: mkdir /mnt/cx && cx fs mount /mnt/cx"})
    static final class Mount extends Client {
        @Parameters(paramLabel = "DIR", description = "An empty directory to mount on.")
        Path dir;

        @Option(names = "--scratch", paramLabel = "DIR", description = {"Where a file being written keeps what is "
                + "not sent yet (parts written out of order), and a copy of all of it when the program may also read "
                + "it or has gone back over it, so that programs may seek and rewrite. A tmpfs such as /dev/shm is "
                + "fastest where memory allows. Default: the temporary directory (${sys:java.io.tmpdir})."})
        Path scratch = Path.of(System.getProperty("java.io.tmpdir"));

        @Override
        int run(FsClient fs) throws IOException {
            FsMounter mounter = java.util.ServiceLoader.load(FsMounter.class).findFirst().orElseThrow(
                    () -> new IOException("this cx has no FUSE support: it was built with a JDK older than 22 "
                            + "(jfuse needs 22); use cx fs get and put, or the Java library"));
            CountDownLatch stop = shutdownLatch();
            try (FsMounter.Mount mounted = mounter.mount(fs, dir, scratch)) {
                out().println("mounted the federation at " + dir.toAbsolutePath() + " (" + fs.identity()
                        + "); Ctrl-C unmounts");
                out().flush();
                while (!stop.await(1, TimeUnit.SECONDS)) {
                    if (!mounted.isMounted()) {
                        out().println(dir.toAbsolutePath() + " was unmounted; stopping");
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        }
    }

    @Command(name = "df", mixinStandardHelpOptions = true, description = "Lists the file servers: capacity, free.")
    static final class Df extends Client {
        @Override
        int run(FsClient fs) throws IOException {
            out().printf(Locale.ROOT, "%-16s %-24s %10s %10s  %s%n", "server", "address", "capacity", "free",
                    "state");
            for (FsClient.ServerInfo s : fs.servers()) {
                out().printf(Locale.ROOT, "%-16s %-24s %10s %10s  %s%n", s.id(), s.address(),
                        Sizes.human(s.capacity()), Sizes.human(s.free()), s.alive() ? "up" : "not heard from");
            }
            return 0;
        }
    }

}
