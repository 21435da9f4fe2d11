package org.cx.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Copy-in/copy-out, the low-impact way in: a federated file copied to a local temporary file that any program may
 * read, seek and rewrite as it likes, and stored back, whole, when {@link #checkIn} is called. Nothing of the local
 * edits reaches the federation before; {@link #close} deletes the local file.
 *
 * <pre>{@code
 * try (LocalCopy copy = LocalCopy.out(fs, "/projects/model.bin")) {
 *     legacyTool(copy.file());
 *     copy.checkIn();
 * }
 * }</pre>
 */
public final class LocalCopy implements AutoCloseable {
    private final FsClient client;
    private final String path;
    private final Path file;

    private LocalCopy(FsClient client, String path, Path file) {
        this.client = client;
        this.path = path;
        this.file = file;
    }

    /**
     * Copies the file at {@code path} to a new local temporary file; a file that does not exist yet starts empty (it is
     * created by {@link #checkIn}).
     */
    public static LocalCopy out(FsClient client, String path) throws IOException {
        String name = FsPath.of(path).name();
        Path file = Files.createTempFile("cx-", "-" + (name.isEmpty() ? "root" : name));
        try (OutputStream to = Files.newOutputStream(file)) {
            client.read(path, to, FsClient.Progress.NONE);
        } catch (FsException e) {
            if (e.code() != FsException.Code.ENOENT) {
                Files.deleteIfExists(file);
                throw e;
            }
        }
        return new LocalCopy(client, path, file);
    }

    /** Stores local file {@code local} as {@code path}, whole (replacing what is there at once, or nothing if it fails). */
    public static Entry in(FsClient client, Path local, String path) throws IOException {
        try (InputStream from = Files.newInputStream(local)) {
            return client.write(path, from, Files.size(local), FsClient.Progress.NONE);
        }
    }

    /** The local copy. */
    public Path file() {
        return file;
    }

    /** Stores the local copy back as the federated file, whole. */
    public Entry checkIn() throws IOException {
        return in(client, file, path);
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(file);
    }
}
