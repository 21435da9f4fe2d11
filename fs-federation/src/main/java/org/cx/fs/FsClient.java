package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;

/**
 * The federation as a program sees it: names from the name service, bytes straight from and to the file servers, in
 * blocks checked by their CRC32C at both ends. Safe for concurrent use: each call takes a connection of its own.
 *
 * <p>Consistency: a file written through this client is visible to every reader, whole, once {@link #write}
 * returns, and never before; a reader sees the file as it was when it asked the name service for it (close-to-open:
 * a file replaced while it is read is read as it was).
 */
public final class FsClient implements AutoCloseable {
    private final String names;
    private final Tls tls;
    private final String user;
    private final Map<String, Deque<FsConnection>> idle = new HashMap<>();
    private boolean closed;

    /** Reports a transfer's progress: bytes done of {@code total} (-1: unknown). */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (done, total) -> { };

        void bytes(long done, long total);
    }

    /** A file server, as the name service knows it. */
    public record ServerInfo(String id, String address, String host, long capacity, long free, boolean alive) {
    }

    private FsClient(String names, Tls tls, String user) {
        this.names = names;
        this.tls = tls;
        this.user = user;
    }

    /**
     * A client of the name service at {@code names} (host:port), as the holder of {@code tls} (a user's credential),
     * or with plain connections as {@code user}. The first call checks that the name service is there.
     */
    public static FsClient connect(String names, Tls tls, String user) throws FsException {
        FsClient c = new FsClient(names, tls, user);
        c.release(c.take(names));
        return c;
    }

    // ---------------------------------------------------------------- names

    public Entry stat(String path) throws FsException {
        return Json.entry(names(Json.op("stat").put("path", path)).get("entry"));
    }

    public List<Namespace.Named> list(String path) throws FsException {
        List<Namespace.Named> out = new ArrayList<>();
        for (JsonNode n : names(Json.op("list").put("path", path)).path("entries")) {
            out.add(new Namespace.Named(n.path("name").asText(), Json.entry(n.get("entry"))));
        }
        return out;
    }

    public void mkdir(String path, boolean parents) throws FsException {
        names(Json.op("mkdir").put("path", path).put("parents", parents));
    }

    public void remove(String path, boolean recursive) throws FsException {
        names(Json.op("remove").put("path", path).put("recursive", recursive));
    }

    public void rename(String from, String to) throws FsException {
        names(Json.op("rename").put("from", from).put("to", to));
    }

    public List<ServerInfo> servers() throws FsException {
        List<ServerInfo> out = new ArrayList<>();
        for (JsonNode s : names(Json.op("servers")).path("servers")) {
            out.add(new ServerInfo(s.path("id").asText(), s.path("address").asText(), s.path("host").asText(),
                    s.path("capacity").asLong(), s.path("free").asLong(), s.path("alive").asBoolean()));
        }
        return out;
    }

    private ObjectNode names(ObjectNode request) throws FsException {
        FsConnection c = take(names);
        try {
            ObjectNode reply = c.call(request);
            release(c);
            return reply;
        } catch (FsException e) {
            if (e.code() == Code.EIO) {
                c.close();
            } else {
                release(c);
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- bytes

    /**
     * Writes everything {@code in} gives as the file at {@code path}, made or replaced at once when all of it is
     * stored and checked; nothing of it is visible before, and nothing is left if it fails.
     */
    public Entry write(String path, InputStream in, long expectedSize, Progress progress) throws IOException {
        ObjectNode place = names(Json.op("place").put("path", path).put("size", Math.max(0, expectedSize)));
        String address = place.path("address").asText();
        String server = place.path("server").asText();
        String blob = place.path("blob").asText();
        FsConnection c = take(address);
        ObjectNode stored;
        try {
            c.send(Json.op("put").put("blob", blob));
            byte[] block = new byte[Blocks.SIZE];
            var crcs = Json.MAPPER.createArrayNode();
            long done = 0;
            while (true) {
                int n = in.readNBytes(block, 0, block.length);
                if (n == 0) {
                    break;
                }
                crcs.add(Blocks.crc(block, 0, n));
                c.data(block, 0, n);
                done += n;
                progress.bytes(done, expectedSize);
                if (n < block.length) {
                    break;
                }
            }
            ObjectNode end = Json.op("end");
            end.set("crcs", crcs);
            stored = c.call(end);
            release(c);
        } catch (FsException e) {
            c.close();
            throw new FsException(e.code(), "writing " + path + " to file server " + server + " (" + address
                    + ") failed: " + e.getMessage() + "; " + path + " is as it was", e);
        }
        ObjectNode put = Json.op("put").put("path", path).put("server", server).put("blob", blob)
                .put("size", stored.path("size").asLong());
        put.set("crcs", stored.path("crcs"));
        names(put);
        return stat(path);
    }

    /** Writes the file at {@code path} to {@code out}, each block checked against its CRC32C. */
    public Entry read(String path, OutputStream out, Progress progress) throws IOException {
        ObjectNode read = names(Json.op("read").put("path", path));
        Entry e = Json.entry(read.get("entry"));
        String address = read.path("address").isTextual() ? read.path("address").asText() : null;
        if (address == null) {
            throw new FsException(Code.EIO, path + " is on file server " + e.server() + ", which is not registered "
                    + "now: start it again, or run cx fs fsck");
        }
        FsConnection c = take(address);
        try {
            long length = c.call(Json.op("get").put("blob", e.blob()).put("offset", 0).put("length", e.size()))
                    .path("length").asLong();
            if (length != e.size()) {
                throw new FsException(Code.EIO, "file server " + e.server() + " holds " + length + " bytes of "
                        + path + ", not " + e.size() + ": run cx fs fsck");
            }
            byte[] block = new byte[Blocks.SIZE];
            long done = 0;
            for (int i = 0; done < length; i++) {
                int n = c.readData(block);
                if (Blocks.crc(block, 0, n) != e.crcs().get(i)) {
                    throw new FsException(Code.EIO, "block " + i + " of " + path + " from file server " + e.server()
                            + " does not match its checksum: run cx fs fsck");
                }
                out.write(block, 0, n);
                done += n;
                progress.bytes(done, length);
            }
            release(c);
            return e;
        } catch (FsException x) {
            c.close();
            throw new FsException(x.code(), "reading " + path + " from file server " + e.server() + " (" + address
                    + ") failed: " + x.getMessage(), x);
        }
    }

    /**
     * Names at {@code path} the file {@code hostPath} (relative to its root) that already sits on file server
     * {@code serverId}'s disk, without copying it. Removing the entry later leaves the file where it is.
     */
    public Entry link(String serverId, String hostPath, String path) throws FsException {
        ServerInfo s = servers().stream().filter(x -> x.id().equals(serverId) || x.address().equals(serverId))
                .findFirst().orElseThrow(() -> new FsException(Code.ENOENT, "no file server " + serverId
                        + " is registered (cx fs df lists them)"));
        ObjectNode adopted = onServer(s.address(), Json.op("adopt").put("path", hostPath));
        ObjectNode put = Json.op("put").put("path", path).put("server", s.id()).put("blob",
                adopted.path("blob").asText()).put("size", adopted.path("size").asLong());
        put.set("crcs", adopted.path("crcs"));
        names(put);
        return stat(path);
    }

    /** One request to the file server at {@code address}. */
    ObjectNode onServer(String address, ObjectNode request) throws FsException {
        FsConnection c = take(address);
        try {
            ObjectNode reply = c.call(request);
            release(c);
            return reply;
        } catch (FsException e) {
            c.close();
            throw e;
        }
    }

    /** Every file under {@code path}, with the address of its file server (null: not registered now). */
    public List<Map.Entry<String, Map.Entry<String, Entry>>> files(String path) throws FsException {
        List<Map.Entry<String, Map.Entry<String, Entry>>> out = new ArrayList<>();
        for (JsonNode f : names(Json.op("files").put("path", path)).path("files")) {
            String address = f.path("address").isTextual() ? f.path("address").asText() : null;
            out.add(Map.entry(f.path("path").asText(), new java.util.AbstractMap.SimpleEntry<>(address,
                    Json.entry(f.get("entry")))));
        }
        return out;
    }

    /** The size and block checksums file server {@code address} finds for {@code blob} now. */
    public JsonNode check(String address, String blob) throws FsException {
        return onServer(address, Json.op("check").put("blob", blob));
    }

    // ---------------------------------------------------------------- connections

    private FsConnection take(String address) throws FsException {
        synchronized (idle) {
            if (closed) {
                throw new FsException(Code.EIO, "the file service client is closed");
            }
            Deque<FsConnection> d = idle.get(address);
            if (d != null && !d.isEmpty()) {
                return d.pop();
            }
        }
        return FsConnection.open(address, tls, user);
    }

    private void release(FsConnection c) {
        synchronized (idle) {
            if (!closed) {
                idle.computeIfAbsent(c.address(), a -> new ArrayDeque<>()).push(c);
                return;
            }
        }
        c.close();
    }

    @Override
    public void close() {
        synchronized (idle) {
            closed = true;
            idle.values().forEach(d -> d.forEach(FsConnection::close));
            idle.clear();
        }
    }
}
