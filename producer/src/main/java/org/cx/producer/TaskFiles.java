package org.cx.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.cx.fs.ActingFor;
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
    private final LongFunction<ActingFor> actingFor;
    private final Map<String, FileSystem> byOwner = new HashMap<>();
    /** The latest grant seen for each owner: what a new connection of their file system shows. */
    private final Map<String, ActingFor> latest = new ConcurrentHashMap<>();

    /**
     * @param names     the name services, {@code host:port}, comma-separated
     * @param tls       this producer's credential; null for plain connections
     * @param producer  this producer's name
     * @param actingFor whose a computation is, with the server's grant to act for them
     */
    TaskFiles(String names, Tls tls, String producer, LongFunction<ActingFor> actingFor) {
        this.names = names;
        this.tls = tls;
        // Who the relay's own client (the list of file servers) is: the credential's name, or on a plain network
        // the producer's.
        this.producer = tls != null ? tls.self().name() : producer.replaceAll("[^A-Za-z0-9._@-]", "_");
        this.actingFor = actingFor;
    }

    /** The file service as the owner of {@code computation} sees it, for tasks run in this JVM. */
    FileSystem forComputation(long computation) {
        ActingFor who = known(computation);
        latest.put(who.user(), who);
        synchronized (byOwner) {
            FileSystem fs = byOwner.get(who.user());
            if (fs == null || !fs.isOpen()) {
                try {
                    fs = CxFileSystemProvider.over(names, FsClient.connectFor(names, tls, () -> latest.get(who.user())));
                } catch (FsException e) {
                    throw new UncheckedIOException(e);
                }
                byOwner.put(who.user(), fs);
            }
            return fs;
        }
    }

    private ActingFor known(long computation) {
        ActingFor who = actingFor.apply(computation);
        if (who == null || who.user().isEmpty()) {
            throw new IllegalStateException("the owner of this task's computation is unknown to its producer, so it "
                    + "cannot act for anyone in the file service");
        }
        return who;
    }

    /**
     * A relay on the Unix socket {@code socket} for one worker process, acting for the owner of the computation
     * {@code running} says the worker runs a task of now (negative: none, and connections are refused).
     */
    FsRelay relay(Path socket, LongSupplier running) throws IOException {
        return FsRelay.start(socket, names, tls, producer, () -> {
            long c = running.getAsLong();
            ActingFor who = c < 0 ? null : actingFor.apply(c);
            return who == null || who.user().isEmpty() ? null : who;
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
