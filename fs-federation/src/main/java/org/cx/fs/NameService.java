package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
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
 * <p>Creating a file is two requests around its transfer: {@code place} picks file servers for each of its columns
 * (stripes, each on its replicas) and a fresh blob name for each, the client writes the blobs there, and {@code put}
 * names them at the file's path; until then no reader sees it. Bytes no
 * longer named (removed or replaced files) are deleted from their file server by the {@link Reaper}; bytes of a
 * transfer that never got its {@code put} stay on their file server as orphans.
 */
public final class NameService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NameService.class);
    /** How often file servers renew their registration. */
    static final Duration RENEW = Duration.ofSeconds(2);
    /** A file server not heard from for this long is taken as down (not placed on, said so by df). */
    static final Duration SERVER_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How to start a name service.
     *
     * @param data where the namespace is kept
     * @param host the address to listen on
     * @param port the port (0: any free one)
     * @param tls  this service's credential (a server's), or null for plain connections
     * @param follow the primary's address when this one starts as its standby; null to start as the primary
     */
    public record Config(Path data, String host, int port, Tls tls, String follow) {
        public Config(Path data, String host, int port, Tls tls) {
            this(data, host, port, tls, null);
        }
    }

    /** What a name service is now. */
    public enum Role {
        /** Answers everything. */
        PRIMARY,
        /** Applies the primary's journal and answers only file servers' registrations, until it takes over. */
        STANDBY,
        /** Was primary and learned of a newer one: answers nothing but that. */
        SUPERSEDED
    }

    private record Pending(ChannelHandlerContext ctx, Caller caller, boolean server, ObjectNode request) {
    }

    private final Config config;
    private final String rootOwner;
    /** The namespace: the follower thread's while a standby, the conductor's from the moment it is primary. */
    private volatile NameStore store;
    private volatile Role role;
    private final Epoch epoch;
    private final ServerTable servers = new ServerTable();
    /** The standby this primary ships its journal to; conductor only. */
    private StandbyLink standby;
    private long lastShippedNanos = System.nanoTime();
    private Thread follower;
    private final CompletableFuture<Long> following = new CompletableFuture<>();
    private final CompletableFuture<Long> tookOver = new CompletableFuture<>();
    private final BlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    private final SecureRandom random = new SecureRandom();
    private final Reaper reaper;
    private final Thread conductor;
    private final FsListener listener;
    private volatile boolean closed;

    private NameService(Config config) throws IOException {
        this.config = config;
        this.rootOwner = config.tls() == null ? "admin" : config.tls().self().name();
        store = NameStore.open(config.data(), rootOwner, System.currentTimeMillis());
        epoch = new Epoch(config.data());
        role = config.follow() == null ? Role.PRIMARY : Role.STANDBY;
        reaper = new Reaper(config.tls());
        conductor = new Thread(this::run, "cx-fs-names");
        conductor.setDaemon(true);
        conductor.start();
        listener = new FsListener("cx-fs-names", config.host(), config.port(), config.tls(), Handler::new);
        if (role == Role.STANDBY) {
            follower = new Thread(new Follower(this, config.follow(), config.tls()), "cx-fs-follower");
            follower.setDaemon(true);
            follower.start();
        }
    }

    public Role role() {
        return role;
    }

    /** This name service's epoch: one more than its primary's when it took over. */
    public long epoch() {
        return epoch.value();
    }

    // ---------------------------------------------------------------- the standby's side (the follower thread)

    NameStore store() {
        return store;
    }

    /** Replaces the namespace with the primary's snapshot (the standby's first step). */
    void install(JsonNode snapshot, long primaryEpoch) throws IOException {
        store = store.replaceWith(snapshot, rootOwner, System.currentTimeMillis());
        epoch.follow(primaryEpoch);
        following.complete(store.seq());
    }

    /** Completes with the record a standby starts from, once it first follows its primary. */
    public CompletableFuture<Long> following() {
        return following;
    }

    /** Completes with the new epoch when a standby takes over. */
    public CompletableFuture<Long> tookOver() {
        return tookOver;
    }

    /** The standby becomes the primary: the primary is unreachable. */
    void takeOver(String primary) throws IOException {
        epoch.set(epoch.value() + 1);
        role = Role.PRIMARY;
        tookOver.complete(epoch.value());
        LOG.warn("name service took over from {}, which cannot be reached: primary now, epoch {}", primary,
                epoch.value());
    }

    boolean closed() {
        return closed;
    }

    /** A newer primary exists: this one stops answering (its clients and file servers turn to the newer one). */
    private void superseded(long newer) {
        if (newer > epoch.value() && role == Role.PRIMARY) {
            role = Role.SUPERSEDED;
            LOG.warn("name service superseded: a primary of epoch {} exists (this one is {}); it answers nothing now",
                    newer, epoch.value());
        }
    }

    public static NameService start(Config config) throws IOException {
        return new NameService(config);
    }

    public int port() {
        return listener.port();
    }

    /** A connection's handler: every request goes to the conductor, but a standby's acknowledgements. */
    private final class Handler extends FsHandler {
        @Override
        protected Tls tls() {
            return config.tls();
        }

        @Override
        protected ObjectNode hello(ObjectNode request, ObjectNode reply) {
            superseded(request.path("epoch").asLong());
            return reply.put("role", role.name().toLowerCase(Locale.ROOT)).put("epoch", epoch.value());
        }

        @Override
        protected void request(ChannelHandlerContext ctx, String op, ObjectNode request) {
            StandbyLink link = standbyLink;
            if (op.equals("ack") && link != null && link.ctx() == ctx) {
                link.acked(request.path("seq").asLong());
                return;
            }
            inbox.add(new Pending(ctx, caller, server, request));
        }
    }

    /** The standby's link, for the event loop to pass acknowledgements to (the conductor sets it). */
    private volatile StandbyLink standbyLink;

    // ---------------------------------------------------------------- the conductor

    private void run() {
        List<Pending> batch = new ArrayList<>();
        List<ObjectNode> replies = new ArrayList<>();
        while (!closed) {
            try {
                Pending first = inbox.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (standby != null && System.nanoTime() - lastShippedNanos > StandbyLink.HEARTBEAT.toNanos()) {
                        ship(); // nothing changed: a heartbeat, so the standby knows this primary lives
                    }
                    continue;
                }
                batch.add(first);
                inbox.drainTo(batch, 4095);
                for (Pending p : batch) {
                    replies.add(answer(p));
                }
                try {
                    if (role == Role.PRIMARY) { // a standby's store is its follower thread's
                        store.sync();
                        ship();
                    }
                } catch (IOException e) {
                    LOG.error("cannot write the name service's journal: changes are refused", e);
                    for (int i = 0; i < batch.size(); i++) {
                        replies.set(i, FsHandler.error(new FsException(Code.EIO, "the name service cannot write "
                                + "its journal: " + e.getMessage())));
                    }
                }
                for (int i = 0; i < batch.size(); i++) {
                    if (replies.get(i) != null) {
                        FsHandler.reply(batch.get(i).ctx(), replies.get(i));
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | Error e) {
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
            return answer(p.request().get("op").asText(), p.request(), p.caller(), p.server(), p.ctx());
        } catch (FsException e) {
            return FsHandler.error(e);
        } catch (IOException e) {
            return FsHandler.error(new FsException(Code.EIO, e.getMessage()));
        }
    }

    private ObjectNode answer(String op, ObjectNode r, Caller caller, boolean server, ChannelHandlerContext ctx)
            throws IOException {
        ObjectNode ok = Json.object().put("ok", true);
        if (!op.equals("register") && role != Role.PRIMARY) {
            throw new FsException(Code.EIO, role == Role.STANDBY ? "this name service is the standby of "
                    + config.follow() + ": ask the primary" : "this name service was superseded by a newer primary"
                    + ": ask that one");
        }
        Namespace ns = store.namespace();
        long now = System.currentTimeMillis();
        switch (op) {
            case "follow" -> {
                if (!server) {
                    throw new FsException(Code.EACCES, "only another name service may follow this one");
                }
                if (standby != null) {
                    LOG.warn("name service: a new standby replaces the one at {}", standby.ctx().channel()
                            .remoteAddress());
                    standby.ctx().close();
                }
                store.takeCommitted(); // what is committed so far is in the snapshot
                standby = new StandbyLink(ctx, store.seq());
                standbyLink = standby;
                ObjectNode reply = ok.put("epoch", epoch.value());
                reply.set("snapshot", store.snapshotJson());
                FsHandler.reply(ctx, reply); // now, before any record shipped after it
                LOG.info("name service: a standby at {} follows from record {}", ctx.channel().remoteAddress(),
                        store.seq());
                return null;
            }
            case "register" -> {
                if (!server) {
                    throw new FsException(Code.EACCES, "only a file server may register");
                }
                superseded(r.path("epoch").asLong());
                ServerTable.Server s = new ServerTable.Server(Json.text(r, "id"), Json.text(r, "address"),
                        r.path("host").asText(), r.path("capacity").asLong(), r.path("free").asLong(),
                        System.nanoTime());
                if (servers.register(s)) {
                    LOG.info("file server {} at {} registered ({} MiB free)", s.id(), s.address(), s.free() >> 20);
                }
                return ok.put("role", role.name().toLowerCase(Locale.ROOT)).put("epoch", epoch.value());
            }
            case "servers" -> {
                servers.list(ok.putArray("servers"));
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
                ok.set("addresses", servers.addresses(e));
                return ok;
            }
            case "files" -> {
                ArrayNode list = ok.putArray("files");
                for (Map.Entry<FsPath, Entry> f : ns.files(Json.path(r, "path"))) {
                    ObjectNode o = list.addObject().put("path", f.getKey().toString());
                    o.set("entry", Json.tree(f.getValue()));
                    o.set("addresses", servers.addresses(f.getValue()));
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
                int stripes = r.path("stripes").asInt(1);
                int replicas = r.path("replicas").asInt(1);
                List<List<ServerTable.Server>> placed = servers.placement(stripes, replicas,
                        r.path("size").asLong(0), r.path("only").asText(""));
                ArrayNode columns = ok.putArray("columns");
                for (List<ServerTable.Server> column : placed) {
                    ObjectNode c = columns.addObject().put("blob", HexFormat.of().formatHex(blobId()));
                    ArrayNode list = c.putArray("servers");
                    for (ServerTable.Server s : column) {
                        list.addObject().put("id", s.id()).put("address", s.address());
                    }
                }
                return ok;
            }
            case "put" -> {
                FsPath path = Json.path(r, "path");
                ns.checkCreate(path, caller);
                Entry given = Json.entry(r.path("entry"));
                Entry file = new Entry(false, given.size(), now, caller.name(), given.mode() & 07777,
                        given.stripeSize(), given.columns(), given.crcs(), given.only());
                servers.check(file);
                reap(store.commit(Json.op("put").put("path", path.toString()).put("time", now)
                        .set("entry", Json.tree(file))));
                return ok.set("entry", Json.tree(file));
            }
            case "relocate" -> {
                FsPath path = Json.path(r, "path");
                Entry e = ns.readable(path, caller);
                Entry.Column moved = Json.MAPPER.treeToValue(r.path("column"), Entry.Column.class);
                int index = r.path("index").asInt(-1);
                if (index < 0 || index >= e.columns().size() || !e.columns().get(index).blob().equals(moved.blob())) {
                    throw new FsException(Code.EINVAL, path + " has no column " + index + " with blob "
                            + moved.blob() + " (it changed since fsck looked)");
                }
                List<Entry.Column> columns = new ArrayList<>(e.columns());
                columns.set(index, moved);
                Entry file = e.withColumns(columns);
                servers.check(file);
                store.commit(Json.op("put").put("path", path.toString()).put("time", e.mtime())
                        .set("entry", Json.tree(file))); // the same bytes: nothing to reap
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

    /**
     * Sends the records committed since the last call to the standby and waits for its acknowledgement, so that a
     * change is answered only once both have it on disk; a standby that does not answer in time is dropped and this
     * primary goes on alone.
     */
    private void ship() {
        ArrayNode records = store.takeCommitted();
        StandbyLink link = standby;
        if (link == null) {
            return;
        }
        lastShippedNanos = System.nanoTime();
        ObjectNode batch = Json.object();
        batch.set("records", records);
        FsHandler.reply(link.ctx(), batch);
        if (!link.awaitAck(store.seq())) {
            LOG.warn("name service: the standby at {} did not acknowledge record {} in {} ms: going on without it",
                    link.ctx().channel().remoteAddress(), store.seq(), StandbyLink.ACK_TIMEOUT.toMillis());
            link.ctx().close();
            standby = null;
            standbyLink = null;
        }
    }

    private byte[] blobId() {
        byte[] id = new byte[16];
        random.nextBytes(id);
        return id;
    }

    /** Deletes from their file servers the bytes of files no longer named (never those linked in place). */
    private void reap(List<Entry> freed) {
        for (Entry e : freed) {
            if (!e.linked()) {
                for (Entry.Column c : e.columns()) {
                    for (String id : c.servers()) {
                        reaper.delete(servers.address(id), c.blob());
                    }
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        if (follower != null) {
            follower.interrupt();
        }
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
