package org.cx.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.cx.fs.Entry;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsPath;
import org.cx.fs.Namespace;
import org.cx.fs.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx fs cp}, {@code get} and {@code put}: files into, out of and within the federation. */
final class FsCopyCommands {
    private FsCopyCommands() {
    }

    /** Copies between this machine and the federation, or within it. */
    abstract static class Copying extends FsCommand.Client {
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

        @Option(names = "--only-on", paramLabel = "ATTR=GLOB[,...]",
                description = "Places each new file only on file servers whose attributes match: host=GLOB, "
                        + "id=GLOB (for example host=lab-*); kept with the file, so fsck --repair keeps to it too. "
                        + "Default: any file server.")
        String onlyOn;

        private FsClient.Placement placement() {
            return new FsClient.Placement(stripes, Sizes.parse(stripeSize), replicas, onlyOn);
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
                FsPath source = FsPath.of(FsCommand.namespacePath(from));
                Entry e = fs.stat(source.toString());
                if (e.directory()) {
                    if (!recursive) {
                        throw new IllegalArgumentException(from + " is a directory: cp -r copies it");
                    }
                    return toFs ? copyTree(fs, source, FsPath.of(FsCommand.namespacePath(to))) : getTree(fs, source,
                            Path.of(to));
                }
                return toFs ? within(fs, source, FsPath.of(FsCommand.namespacePath(to))) : get(fs, source, Path.of(to), e);
            }
            Path source = Path.of(from);
            if (Files.isDirectory(source)) {
                if (!recursive) {
                    throw new IllegalArgumentException(from + " is a directory: cp -r copies it");
                }
                return putTree(fs, source, FsPath.of(FsCommand.namespacePath(to)));
            }
            return put(fs, source, FsPath.of(FsCommand.namespacePath(to)));
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
            return copy(fs, FsPath.SCHEME + FsCommand.namespacePath(source), target, true);
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
            return copy(fs, source, FsPath.SCHEME + FsCommand.namespacePath(target), true);
        }
    }
}
