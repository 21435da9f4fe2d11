package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How task code without a network of its own (a sandboxed worker process) reaches the federation: through its
 * producer. The relay listens on a Unix socket in a directory the worker sees. Each connection first names the
 * process of the federation it wants ({@code via}: one of the name services given, or a file server the name service
 * knows; nothing else), and the relay connects there with the producer's credential, says hello for the owner of the
 * task running in that worker, answers with the far side's hello and from then on passes the bytes both ways. Task
 * code thus never holds a credential, and acts only as its computation's owner.
 */
public final class FsRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FsRelay.class);
    /** How often the list of file servers may be read again when a task names one not on it. */
    private static final long SERVERS_REFRESH_NANOS = 1_000_000_000L;

    private final Path socket;
    private final ServerSocketChannel listener;
    private final List<String> nameServices;
    private final Tls tls;
    private final String self;
    private final Supplier<ActingFor> owner;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private volatile Set<String> servers = Set.of();
    private long serversReadAt = Long.MIN_VALUE / 2;
    private FsClient directory;
    private volatile boolean closed;

    private FsRelay(Path socket, ServerSocketChannel listener, String names, Tls tls, String self,
                    Supplier<ActingFor> owner) {
        this.socket = socket;
        this.listener = listener;
        this.nameServices = List.of(names.split(","));
        this.tls = tls;
        this.self = self;
        this.owner = owner;
    }

    /**
     * Starts a relay on the Unix socket {@code socket} (replacing a stale one) to the federation whose name services
     * are {@code names}, connecting with {@code tls} (a producer's credential; null: plain connections) and acting
     * for {@code owner.get()}, with its grant (null while no task runs: connections are then refused). {@code self}
     * is the name the relay reads the list of file servers as.
     */
    public static FsRelay start(Path socket, String names, Tls tls, String self, Supplier<ActingFor> owner)
            throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            listener.bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            listener.close();
            throw new IOException("cannot listen on " + socket + " (" + socket.toString().length() + " characters; "
                    + "Unix sockets allow about 100): " + e.getMessage(), e);
        }
        FsRelay relay = new FsRelay(socket, listener, names, tls, self, owner);
        Thread.ofPlatform().daemon().name("fs-relay-" + socket.getFileName()).start(relay::accept);
        return relay;
    }

    public Path socket() {
        return socket;
    }

    private void accept() {
        while (!closed) {
            SocketChannel task;
            try {
                task = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("file service relay {} stopped accepting: {}", socket, e.getMessage());
                }
                return;
            }
            Thread.ofPlatform().daemon().name("fs-relay").start(() -> relay(task));
        }
    }

    private void relay(SocketChannel task) {
        open.add(task);
        InputStream fromTask = ChannelStreams.in(task);
        DataOutputStream toTask = new DataOutputStream(ChannelStreams.out(task));
        FsConnection far = null;
        try {
            JsonNode via = readRequest(new DataInputStream(fromTask));
            String to = via.path("to").asText();
            ActingFor who = owner.get();
            if (who == null) {
                throw new FsException(Code.EACCES, "no task runs in this worker, so nobody to act for");
            }
            if (!reachable(to)) {
                throw new FsException(Code.EACCES, to + " is neither a name service nor a file server of the "
                        + "federation at " + String.join(",", nameServices));
            }
            far = FsConnection.open(to, tls, who, via.path("epoch").asLong());
            open.add(far);
            write(toTask, far.hello());
            FsConnection farSide = far;
            Thread up = Thread.ofPlatform().daemon().name("fs-relay-up").start(() -> pump(fromTask, farSide.output(),
                    task, farSide));
            pump(farSide.input(), toTask, task, farSide);
            up.join();
        } catch (FsException e) {
            try {
                write(toTask, FsHandler.error(e));
            } catch (IOException ignored) {
                // the task went away first
            }
        } catch (IOException e) {
            LOG.debug("file service relay {}: {}", socket, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(task);
            if (far != null) {
                far.close();
                open.remove(far);
            }
            open.remove(task);
        }
    }

    /** Copies bytes until either side ends, then closes both (which ends the other direction's copy). */
    private static void pump(InputStream in, OutputStream out, AutoCloseable a, AutoCloseable b) {
        byte[] buffer = new byte[64 << 10];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                if (in.available() == 0) {
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side closed or failed: both are closed below
        } finally {
            closeQuietly(a);
            closeQuietly(b);
        }
    }

    private static JsonNode readRequest(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte kind = in.readByte();
        if (kind != FsFrames.JSON || length < 2 || length > 64 << 10) {
            throw new FsException(Code.EINVAL, "a relayed connection must begin with a 'via' request");
        }
        byte[] body = new byte[length - 1];
        in.readFully(body);
        JsonNode request = Json.MAPPER.readTree(body);
        if (!"via".equals(request.path("op").asText())) {
            throw new FsException(Code.EINVAL, "a relayed connection must begin with a 'via' request, not '"
                    + request.path("op").asText() + "'");
        }
        return request;
    }

    private static void write(DataOutputStream out, ObjectNode message) throws IOException {
        byte[] body = Json.MAPPER.writeValueAsBytes(message);
        out.writeInt(body.length + 1);
        out.writeByte(FsFrames.JSON);
        out.write(body);
        out.flush();
    }

    /** Whether {@code address} is a name service given or a file server the name service lists. */
    private boolean reachable(String address) throws FsException {
        if (nameServices.contains(address) || servers.contains(address)) {
            return true;
        }
        synchronized (this) {
            long now = System.nanoTime();
            if (now - serversReadAt < SERVERS_REFRESH_NANOS) {
                return servers.contains(address);
            }
            serversReadAt = now;
            if (directory == null) {
                directory = FsClient.connect(String.join(",", nameServices), tls, self);
            }
            Set<String> known = new HashSet<>();
            for (FsClient.ServerInfo s : directory.servers()) {
                known.add(s.address());
            }
            servers = Set.copyOf(known);
            return known.contains(address);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing after the end of a relayed connection
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        open.forEach(FsRelay::closeQuietly);
        synchronized (this) {
            if (directory != null) {
                directory.close();
            }
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // the directory went first
        }
    }
}
