package org.cx.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.FsRelay;
import org.cx.fs.nio.CxFileSystemProvider;
import org.cx.security.Tls;

/**
 * The federated file service as this producer's tasks see it ({@link org.cx.api.TaskContext#files()}): each task acts
 * for its computation's owner, with this producer's credential vouching for it. Worker processes reach the service
 * through a {@link FsRelay} of their own, since they hold no credential and, sandboxed, have no network; tasks in the
 * producer's JVM through a client per owner.
 */
final class TaskFiles implements AutoCloseable {
    private final String names;
    private final Tls tls;
    private final String producer;
    private final Map<String, FileSystem> byOwner = new HashMap<>();

    /**
     * @param names    the name services, {@code host:port}, comma-separated
     * @param tls      this producer's credential; null for plain connections
     * @param producer this producer's name
     */
    TaskFiles(String names, Tls tls, String producer) {
        this.names = names;
        this.tls = tls;
        this.producer = producer.replaceAll("[^A-Za-z0-9._@-]", "_");
    }

    /** The file service as {@code owner} sees it, for tasks run in this JVM. */
    FileSystem forOwner(String owner) {
        if (owner == null || owner.isEmpty()) {
            throw new IllegalStateException("the owner of this task's computation is unknown to its producer, so it "
                    + "cannot act for anyone in the file service");
        }
        synchronized (byOwner) {
            FileSystem fs = byOwner.get(owner);
            if (fs == null || !fs.isOpen()) {
                try {
                    fs = CxFileSystemProvider.over(names, FsClient.connect(names, tls, owner));
                } catch (FsException e) {
                    throw new UncheckedIOException(e);
                }
                byOwner.put(owner, fs);
            }
            return fs;
        }
    }

    /**
     * A relay on the Unix socket {@code socket} for one worker process, acting for {@code owner.get()}: the owner of
     * the task it runs now (null or empty: none runs, and connections are refused).
     */
    FsRelay relay(Path socket, Supplier<String> owner) throws IOException {
        return FsRelay.start(socket, names, tls, producer, () -> {
            String o = owner.get();
            return o == null || o.isEmpty() ? null : o;
        });
    }

    @Override
    public void close() {
        synchronized (byOwner) {
            for (FileSystem fs : byOwner.values()) {
                try {
                    fs.close();
                } catch (IOException ignored) {
                    // closing a client only closes its connections
                }
            }
            byOwner.clear();
        }
    }
}
