package org.cx.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.fs.Entry;
import org.cx.fs.FileServer;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsMounter;
import org.cx.fs.FsPath;
import org.cx.fs.Layout;
import org.cx.fs.NameService;
import org.cx.fs.Namespace;
import org.cx.fs.Sizes;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
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
            FsCommand.Cat.class, FsCommand.Cp.class, FsCommand.Get.class, FsCommand.Put.class, FsCommand.Mv.class,
            FsCommand.Rm.class, FsCommand.Mkdir.class, FsCommand.Ln.class, FsCommand.Df.class, FsCommand.Fsck.class, FsCommand.Mount.class})
final class FsCommand extends Group {
    /** The name service's port unless told otherwise. */
    static final int NAMES_PORT = 7300;
    private static final String NAMES_HELP = "The name service, HOST:PORT (a primary and its standby: "
            + "HOST:PORT,HOST:PORT). Default: $CX_FS_NAMES, else 127.0.0.1:" + NAMES_PORT + ".";

    /** Waits until the process is told to stop (SIGTERM, Ctrl-C). */
    private static void awaitShutdown() throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "cx-fs-shutdown"));
        stop.await();
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
                         ServiceRecord.of(Discovery.FS_NAMES, "names", advertised(host) + ":" + names.port()))) {
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

    private static String advertised(String host) {
        if (!host.equals("0.0.0.0") && !host.equals("::")) {
            return host;
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "127.0.0.1";
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
                try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
                    List<ServiceRecord> found = discovery.lookup(Discovery.FS_NAMES);
                    if (found.isEmpty()) {
                        throw new IOException("no name service is registered with the lookup service at " + lookup
                                + ": start one with 'cx fs names --lookup " + lookup + "'");
                    }
                    return String.join(",", found.stream().map(ServiceRecord::address).toList()); // primary and standby
                }
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

    private static String namespacePath(String text) {
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

    /** Copies between this machine and the federation, or within it. */
    abstract static class Copying extends Client {
        private static final long PROGRESS_ABOVE = 16L << 20;

        @Option(names = "--stripes", defaultValue = "1", paramLabel = "K",
                description = "Spreads each new file over K file servers, read back in parallel. Default: 1.")
        int stripes;

        @Option(names = "--stripe-size", defaultValue = "4M", paramLabel = "BYTES",
                description = "Bytes of a stripe unit, whole MiB. Default: ${DEFAULT-VALUE}.")
        String stripeSize;

        @Option(names = "--replicas", defaultValue = "1", paramLabel = "R",
                description = "Keeps each new file on R file servers: reads go on while up to R-1 of them are "
                        + "down. Default: 1.")
        int replicas;

        private FsClient.Placement placement() {
            return new FsClient.Placement(stripes, Sizes.parse(stripeSize), replicas);
        }

        /** Copies {@code from} to {@code to}; one of them (or both) a cx: path. */
        int copy(FsClient fs, String from, String to, boolean recursive) throws IOException {
            boolean fromFs = from.startsWith(FsPath.SCHEME);
            boolean toFs = to.startsWith(FsPath.SCHEME);
            if (!fromFs && !toFs) {
                throw new IllegalArgumentException("one of '" + from + "' and '" + to + "' must be a path in the "
                        + "federation, written cx:/...");
            }
            if (fromFs) {
                FsPath source = FsPath.of(namespacePath(from));
                Entry e = fs.stat(source.toString());
                if (e.directory()) {
                    if (!recursive) {
                        throw new IllegalArgumentException(from + " is a directory: cp -r copies it");
                    }
                    return toFs ? copyTree(fs, source, FsPath.of(namespacePath(to))) : getTree(fs, source,
                            Path.of(to));
                }
                return toFs ? within(fs, source, FsPath.of(namespacePath(to))) : get(fs, source, Path.of(to), e);
            }
            Path source = Path.of(from);
            if (Files.isDirectory(source)) {
                if (!recursive) {
                    throw new IllegalArgumentException(from + " is a directory: cp -r copies it");
                }
                return putTree(fs, source, FsPath.of(namespacePath(to)));
            }
            return put(fs, source, FsPath.of(namespacePath(to)));
        }

        private int put(FsClient fs, Path source, FsPath target) throws IOException {
            FsPath t = isDirectory(fs, target) ? target.child(source.getFileName().toString()) : target;
            long size = Files.size(source);
            try (InputStream in = Files.newInputStream(source)) {
                transfer(source + " -> " + FsPath.SCHEME + t, size, p -> fs.write(t.toString(), in, size, placement(),
                        p));
            }
            return 0;
        }

        private int get(FsClient fs, FsPath source, Path target, Entry e) throws IOException {
            Path t = Files.isDirectory(target) ? target.resolve(source.name()) : target;
            Path part = t.resolveSibling("." + t.getFileName() + ".cx-part");
            try (OutputStream out = Files.newOutputStream(part)) {
                transfer(FsPath.SCHEME + source + " -> " + t, e.size(), p -> fs.read(source.toString(), out, p));
            } catch (IOException x) {
                Files.deleteIfExists(part);
                throw x;
            }
            Files.move(part, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return 0;
        }

        private int within(FsClient fs, FsPath source, FsPath target) throws IOException {
            Path tmp = Files.createTempFile("cx-fs-", ".copy");
            try {
                Entry e = fs.stat(source.toString());
                get(fs, source, tmp, e);
                return put(fs, tmp, isDirectory(fs, target) ? target.child(source.name()) : target);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }

        private int putTree(FsClient fs, Path source, FsPath target) throws IOException {
            FsPath root = isDirectory(fs, target) ? target.child(source.getFileName().toString()) : target;
            try (var walk = Files.walk(source)) {
                for (Path p : walk.toList()) {
                    FsPath t = root;
                    for (Path name : source.relativize(p)) {
                        if (!name.toString().isEmpty()) {
                            t = t.child(name.toString());
                        }
                    }
                    if (Files.isDirectory(p)) {
                        fs.mkdir(t.toString(), true);
                    } else {
                        put(fs, p, t);
                    }
                }
            }
            return 0;
        }

        private int getTree(FsClient fs, FsPath source, Path target) throws IOException {
            Path root = Files.isDirectory(target) ? target.resolve(source.name()) : target;
            Files.createDirectories(root);
            for (Namespace.Named n : fs.list(source.toString())) {
                FsPath child = source.child(n.name());
                if (n.entry().directory()) {
                    getTree(fs, child, root.resolve(n.name()));
                } else {
                    get(fs, child, root.resolve(n.name()), n.entry());
                }
            }
            return 0;
        }

        private int copyTree(FsClient fs, FsPath source, FsPath target) throws IOException {
            FsPath root = isDirectory(fs, target) ? target.child(source.name()) : target;
            fs.mkdir(root.toString(), true);
            for (Namespace.Named n : fs.list(source.toString())) {
                if (n.entry().directory()) {
                    copyTree(fs, source.child(n.name()), root.child(n.name()));
                } else {
                    within(fs, source.child(n.name()), root.child(n.name()));
                }
            }
            return 0;
        }

        private static boolean isDirectory(FsClient fs, FsPath path) throws IOException {
            try {
                return fs.stat(path.toString()).directory();
            } catch (FsException e) {
                if (e.code() == FsException.Code.ENOENT) {
                    return false;
                }
                throw e;
            }
        }

        /** A transfer, with a progress line on a terminal for large files and the rate at the end. */
        private void transfer(String what, long size, Transfer t) throws IOException {
            boolean show = size >= PROGRESS_ABOVE && System.console() != null;
            long start = System.nanoTime();
            long[] lastShown = {0};
            t.run((done, total) -> {
                long now = System.nanoTime();
                if (show && now - lastShown[0] > 200_000_000L) {
                    lastShown[0] = now;
                    double seconds = (now - start) / 1e9;
                    System.err.printf(Locale.ROOT, "\r%s  %s of %s  %.0f MiB/s   ", what, Sizes.human(done),
                            Sizes.human(total), done / seconds / (1 << 20));
                }
            });
            if (size >= PROGRESS_ABOVE) {
                double seconds = (System.nanoTime() - start) / 1e9;
                err().printf(Locale.ROOT, "%s%s: %s in %.1f s (%.0f MiB/s)%n", show ? "\r" : "", what,
                        Sizes.human(size), seconds, size / seconds / (1 << 20));
            }
        }

        @FunctionalInterface
        private interface Transfer {
            void run(FsClient.Progress progress) throws IOException;
        }
    }

    @Command(name = "cp", mixinStandardHelpOptions = true,
            description = {"Copies files into, out of, or within the federation.",
                "Examples: cx fs cp data.bin cx:/data/      cx fs cp cx:/data/out.bin .      cx fs cp -r results "
                    + "cx:/runs/7"})
    static final class Cp extends Copying {
        @Option(names = {"-r", "-R"}, description = "Copies directories with their content.")
        boolean recursive;

        @Parameters(index = "0", paramLabel = "SOURCE")
        String source;

        @Parameters(index = "1", paramLabel = "TARGET")
        String target;

        @Override
        int run(FsClient fs) throws IOException {
            return copy(fs, source, target, recursive);
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = {"Copies a file out of the federation (copy-out).", "Example: cx fs get /data/out.bin ."})
    static final class Get extends Copying {
        @Parameters(index = "0", paramLabel = "PATH")
        String source;

        @Parameters(index = "1", paramLabel = "LOCAL", defaultValue = ".")
        String target;

        @Override
        int run(FsClient fs) throws IOException {
            return copy(fs, FsPath.SCHEME + namespacePath(source), target, true);
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true,
            description = {"Copies a file into the federation (copy-in).", "Example: cx fs put data.bin /data/"})
    static final class Put extends Copying {
        @Parameters(index = "0", paramLabel = "LOCAL")
        String source;

        @Parameters(index = "1", paramLabel = "PATH")
        String target;

        @Override
        int run(FsClient fs) throws IOException {
            return copy(fs, source, FsPath.SCHEME + namespacePath(target), true);
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

        @Override
        @SuppressWarnings("try") // the mount only needs closing
        int run(FsClient fs) throws IOException {
            FsMounter mounter = java.util.ServiceLoader.load(FsMounter.class).findFirst().orElseThrow(
                    () -> new IOException("this cx has no FUSE support: it was built with a JDK older than 22 "
                            + "(jfuse needs 22); use cx fs get and put, or the Java library"));
            try (AutoCloseable mounted = mounter.mount(fs, dir)) {
                out().println("mounted the federation at " + dir.toAbsolutePath() + " (" + fs.identity()
                        + "); Ctrl-C unmounts");
                out().flush();
                awaitShutdown();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("unmounting " + dir + " failed: " + e.getMessage(), e);
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

    @Command(name = "fsck", mixinStandardHelpOptions = true,
            description = {"Checks every file under PATH: each replica of each column is on a file server that is",
                "up, and every block matches its checksum. With --repair, makes missing or damaged replicas again",
                "from a good one, on another file server. Exit status 0 when all is well (or was repaired), 1 when",
                "something is not."})
    static final class Fsck extends Client {
        @Option(names = "--repair", description = "Re-replicates what is missing or damaged.")
        boolean repair;

        @Parameters(paramLabel = "PATH", defaultValue = "/")
        String path;

        @Override
        int run(FsClient fs) throws IOException {
            int bad = 0;
            int files = 0;
            long bytes = 0;
            for (FsClient.FileInfo f : fs.files(namespacePath(path))) {
                files++;
                bytes += f.entry().size();
                for (int c = 0; c < f.entry().columns().size(); c++) {
                    if (!checkColumn(fs, f, c)) {
                        bad++;
                    }
                }
            }
            out().println(files + " files, " + Sizes.human(bytes) + " checked: " + (bad == 0 ? "all well"
                    : bad + " columns with problems" + (repair ? " left" : " (--repair re-replicates)")));
            return bad == 0 ? 0 : 1;
        }

        /** Whether column {@code c} of {@code f} is whole on every replica (after repair, if asked). */
        private boolean checkColumn(FsClient fs, FsClient.FileInfo f, int c) {
            Entry e = f.entry();
            Entry.Column column = e.columns().get(c);
            Layout layout = e.layout();
            List<Integer> blocks = layout.blocksOf(c);
            long size = blocks.stream().mapToLong(layout::blockLength).sum();
            List<Integer> crcs = blocks.stream().map(e.crcs()::get).toList();
            List<String> good = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (String id : column.servers()) {
                String address = f.addresses().get(id);
                String problem = null;
                if (address == null) {
                    problem = "file server " + id + " is not registered";
                } else {
                    try {
                        var found = fs.check(address, column.blob());
                        List<Integer> actual = new ArrayList<>();
                        found.path("crcs").forEach(x -> actual.add(x.asInt()));
                        if (found.path("size").asLong() != size) {
                            problem = "file server " + id + " holds " + found.path("size").asLong() + " bytes, not "
                                    + size;
                        } else if (!actual.equals(crcs)) {
                            problem = "blocks on file server " + id + " do not match their checksums";
                        }
                    } catch (FsException x) {
                        problem = x.getMessage();
                    }
                }
                if (problem == null) {
                    good.add(id);
                } else {
                    problems.add(problem);
                }
            }
            String where = FsPath.SCHEME + f.path() + (e.columns().size() > 1 ? " (column " + c + ")" : "");
            if (problems.isEmpty()) {
                return true;
            }
            out().println(where + ": " + String.join("; ", problems));
            if (!repair) {
                return false;
            }
            if (good.isEmpty() || e.linked()) {
                out().println(where + ": cannot repair: " + (e.linked() ? "a linked file has one copy"
                        : "no replica is whole"));
                return false;
            }
            return repairColumn(fs, f, c, good, size, crcs, where);
        }

        private boolean repairColumn(FsClient fs, FsClient.FileInfo f, int c, List<String> good, long size,
                                     List<Integer> crcs, String where) {
            Entry.Column column = f.entry().columns().get(c);
            List<String> servers = new ArrayList<>(good);
            try {
                List<FsClient.ServerInfo> spare = fs.servers().stream().filter(FsClient.ServerInfo::alive)
                        .filter(s -> !column.servers().contains(s.id()))
                        .sorted(java.util.Comparator.comparingLong(FsClient.ServerInfo::free).reversed()).toList();
                String from = f.addresses().get(good.get(0));
                for (FsClient.ServerInfo s : spare) {
                    if (servers.size() == column.servers().size()) {
                        break;
                    }
                    fs.copyBlob(column.blob(), size, crcs, from, s.address());
                    servers.add(s.id());
                }
                if (servers.size() < column.servers().size()) {
                    out().println(where + ": only " + servers.size() + " of " + column.servers().size()
                            + " replicas could be made: start more file servers");
                    fs.relocate(f.path(), c, new Entry.Column(column.blob(), servers));
                    return false;
                }
                fs.relocate(f.path(), c, new Entry.Column(column.blob(), servers));
                out().println(where + ": repaired, now on " + String.join(", ", servers));
                return true;
            } catch (FsException x) {
                out().println(where + ": repair failed: " + x.getMessage());
                return false;
            }
        }
    }
}
