package org.cx.fs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The name service: holds the namespace ({@link Namespace}, durable in a {@link NameStore}) and knows the file
 * servers, which register and renew every {@link #RENEW} with their address and free space.
 *
 * <p>One thread, the conductor, owns the namespace and the servers: connections hand it their requests; it takes
 * every request waiting, answers reads at once, checks and journals changes, forces the journal once for all of
 * them (group commit), and only then sends their replies. A reply that says a change was made is a promise that a
 * crash will not undo it.
 *
 * <p>Creating a file is two requests around its transfer: {@code place} picks a file server and a fresh blob name,
 * the client writes the blob there, and {@code put} names it at its path; until then no reader sees it. Bytes no
 * longer named (removed or replaced files) are deleted from their file server by the {@link Reaper}; bytes of a
 * transfer that never got its {@code put} stay as orphans for {@code fsck} to report.
 */
public final class NameService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NameService.class);
    /** How often file servers renew their registration. */
    static final java.time.Duration RENEW = java.time.Duration.ofSeconds(2);
    /** A file server not heard from for this long is taken as down (not placed on, said so by df). */
    static final java.time.Duration SERVER_TIMEOUT = java.time.Duration.ofSeconds(10);

    /**
     * How to start a name service.
     *
     * @param data where the namespace is kept
     * @param host the address to listen on
     * @param port the port (0: any free one)
     * @param tls  this service's credential (a server's), or null for plain connections
     */
    public record Config(Path data, String host, int port, Tls tls) {
    }

    /** A file server as it registered. */
    record Server(String id, String address, String host, long capacity, long free, long seenNanos) {
        boolean alive(long now) {
            return now - seenNanos < SERVER_TIMEOUT.toNanos();
        }
    }

    private record Pending(ChannelHandlerContext ctx, Caller caller, boolean server, ObjectNode request) {
    }

    private final NameStore store;
    private final Map<String, Server> servers = new LinkedHashMap<>();
    private final BlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    private final SecureRandom random = new SecureRandom();
    private final Reaper reaper;
    private final Thread conductor;
    private final FsListener listener;
    private volatile boolean closed;

    private NameService(Config config) throws IOException {
        String owner = config.tls() == null ? "admin" : config.tls().self().name();
        store = NameStore.open(config.data(), owner, System.currentTimeMillis());
        reaper = new Reaper(config.tls());
        conductor = new Thread(this::run, "cx-fs-names");
        conductor.setDaemon(true);
        conductor.start();
        listener = new FsListener("cx-fs-names", config.host(), config.port(), config.tls(), Handler::new);
    }

    public static NameService start(Config config) throws IOException {
        return new NameService(config);
    }

    public int port() {
        return listener.port();
    }

    /** A connection's handler: every request goes to the conductor. */
    private final class Handler extends FsHandler {
        @Override
        protected void request(ChannelHandlerContext ctx, String op, ObjectNode request) {
            inbox.add(new Pending(ctx, caller, server, request));
        }
    }

    // ---------------------------------------------------------------- the conductor

    private void run() {
        List<Pending> batch = new ArrayList<>();
        List<ObjectNode> replies = new ArrayList<>();
        while (!closed) {
            try {
                Pending first = inbox.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                inbox.drainTo(batch, 4095);
                for (Pending p : batch) {
                    replies.add(answer(p));
                }
                try {
                    store.sync();
                } catch (IOException e) {
                    LOG.error("cannot write the name service's journal: changes are refused", e);
                    for (int i = 0; i < batch.size(); i++) {
                        replies.set(i, FsHandler.error(new FsException(Code.EIO, "the name service cannot write "
                                + "its journal: " + e.getMessage())));
                    }
                }
                for (int i = 0; i < batch.size(); i++) {
                    FsHandler.reply(batch.get(i).ctx(), replies.get(i));
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.error("name service conductor failed a batch", e);
                for (Pending p : batch) {
                    FsHandler.refuse(p.ctx(), new FsException(Code.EIO, "the name service failed: " + e));
                }
            } finally {
                batch.clear();
                replies.clear();
            }
        }
    }

    private ObjectNode answer(Pending p) {
        try {
            return answer(p.request().get("op").asText(), p.request(), p.caller(), p.server());
        } catch (FsException e) {
            return FsHandler.error(e);
        } catch (IOException e) {
            return FsHandler.error(new FsException(Code.EIO, e.getMessage()));
        }
    }

    private ObjectNode answer(String op, ObjectNode r, Caller caller, boolean server) throws IOException {
        Namespace ns = store.namespace();
        long now = System.currentTimeMillis();
        ObjectNode ok = Json.object().put("ok", true);
        switch (op) {
            case "register" -> {
                if (!server) {
                    throw new FsException(Code.EACCES, "only a file server may register");
                }
                Server s = new Server(Json.text(r, "id"), Json.text(r, "address"), r.path("host").asText(),
                        r.path("capacity").asLong(), r.path("free").asLong(), System.nanoTime());
                if (servers.put(s.id(), s) == null) {
                    LOG.info("file server {} at {} registered ({} MiB free)", s.id(), s.address(), s.free() >> 20);
                }
                return ok;
            }
            case "servers" -> {
                ArrayNode list = ok.putArray("servers");
                long t = System.nanoTime();
                for (Server s : servers.values()) {
                    list.addObject().put("id", s.id()).put("address", s.address()).put("host", s.host())
                            .put("capacity", s.capacity()).put("free", s.free()).put("alive", s.alive(t));
                }
                return ok;
            }
            case "stat" -> {
                return ok.set("entry", Json.tree(ns.stat(Json.path(r, "path"), caller)));
            }
            case "list" -> {
                ArrayNode list = ok.putArray("entries");
                for (Namespace.Named n : ns.list(Json.path(r, "path"), caller)) {
                    list.addObject().put("name", n.name()).set("entry", Json.tree(n.entry()));
                }
                return ok;
            }
            case "read" -> {
                Entry e = ns.readable(Json.path(r, "path"), caller);
                ok.set("entry", Json.tree(e));
                return ok.put("address", address(e.server()));
            }
            case "files" -> {
                ArrayNode list = ok.putArray("files");
                for (Map.Entry<FsPath, Entry> f : ns.files(Json.path(r, "path"))) {
                    list.addObject().put("path", f.getKey().toString()).put("address", address(f.getValue()
                            .server())).set("entry", Json.tree(f.getValue()));
                }
                return ok;
            }
            case "mkdir" -> {
                FsPath path = Json.path(r, "path");
                int mode = r.path("mode").asInt(0755) & 07777;
                for (FsPath dir : ns.checkMkdir(path, r.path("parents").asBoolean(), caller)) {
                    store.commit(Json.op("mkdir").put("path", dir.toString()).put("owner", caller.name())
                            .put("mode", mode).put("time", now));
                }
                return ok;
            }
            case "place" -> {
                FsPath path = Json.path(r, "path");
                ns.checkCreate(path, caller);
                Server s = placement(r.path("size").asLong(0));
                return ok.put("server", s.id()).put("address", s.address())
                        .put("blob", HexFormat.of().formatHex(blobId()));
            }
            case "put" -> {
                FsPath path = Json.path(r, "path");
                ns.checkCreate(path, caller);
                String serverId = Json.text(r, "server");
                String blob = Json.text(r, "blob");
                if (!servers.containsKey(serverId)) {
                    throw new FsException(Code.EINVAL, "no file server " + serverId + " is registered");
                }
                Entry file = new Entry(false, r.path("size").asLong(), now, caller.name(),
                        r.path("mode").asInt(0644) & 07777, serverId, blob, crcs(r));
                if (Blocks.count(file.size()) != file.crcs().size()) {
                    throw new FsException(Code.EINVAL, "a file of " + file.size() + " bytes has "
                            + Blocks.count(file.size()) + " blocks, not " + file.crcs().size());
                }
                reap(store.commit(Json.op("put").put("path", path.toString()).put("time", now)
                        .set("entry", Json.tree(file))));
                return ok;
            }
            case "remove" -> {
                FsPath path = Json.path(r, "path");
                ns.checkRemove(path, r.path("recursive").asBoolean(), caller);
                reap(store.commit(Json.op("remove").put("path", path.toString()).put("time", now)));
                return ok;
            }
            case "rename" -> {
                FsPath from = Json.path(r, "from");
                FsPath to = Json.path(r, "to");
                ns.checkRename(from, to, caller);
                reap(store.commit(Json.op("rename").put("from", from.toString()).put("to", to.toString())
                        .put("time", now)));
                return ok;
            }
            default -> throw new FsException(Code.EINVAL, "unknown request '" + op + "'");
        }
    }

    private byte[] blobId() {
        byte[] id = new byte[16];
        random.nextBytes(id);
        return id;
    }

    private static List<Integer> crcs(ObjectNode r) {
        List<Integer> out = new ArrayList<>();
        r.path("crcs").forEach(c -> out.add(c.asInt()));
        return out;
    }

    private String address(String serverId) {
        Server s = servers.get(serverId);
        return s == null ? null : s.address();
    }

    /** The live file server with the most free space that can hold {@code size} bytes. */
    private Server placement(long size) throws FsException {
        long now = System.nanoTime();
        Server best = null;
        for (Server s : servers.values()) {
            if (s.alive(now) && (best == null || s.free() > best.free())) {
                best = s;
            }
        }
        if (best == null) {
            throw new FsException(Code.EIO, "no file server is up: start one with 'cx fs serve --root DIR "
                    + "--names HOST:PORT'");
        }
        if (best.free() < size) {
            throw new FsException(Code.ENOSPC, "no file server has " + size + " bytes free (the most is "
                    + best.free() + " on " + best.id() + ")");
        }
        return best;
    }

    /** Deletes from their file servers the bytes of files no longer named (never those linked in place). */
    private void reap(List<Entry> freed) {
        for (Entry e : freed) {
            if (!e.linked() && e.server() != null) {
                reaper.delete(address(e.server()), e.blob());
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        conductor.interrupt();
        try {
            conductor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reaper.close();
        store.close();
    }
}
