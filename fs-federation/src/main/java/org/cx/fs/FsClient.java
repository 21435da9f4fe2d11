package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation as a program sees it: names from the name service, bytes straight from and to the file servers, in
 * blocks checked by their CRC32C at both ends. Safe for concurrent use: each call takes a connection of its own.
 *
 * <p>Consistency: a file written through this client is visible to every reader, whole, once {@link #write}
 * returns, and never before; a reader sees the file as it was when it asked the name service for it (close-to-open:
 * a file replaced while it is read is read as it was).
 */
public final class FsClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FsClient.class);

    private final FsConnections connections;
    private String identity;

    /** Reports a transfer's progress: bytes done of {@code total} (-1: unknown). */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (done, total) -> { };

        void bytes(long done, long total);
    }

    /** A file server, as the name service knows it. */
    public record ServerInfo(String id, String address, String host, long capacity, long free, boolean alive) {
    }

    private FsClient(String names, FsConnections.Dialer dialer) {
        this.connections = new FsConnections(names, dialer);
    }

    /**
     * A client of the name service at {@code names} (host:port; or a primary and its standby, {@code a,b}, of which
     * it uses the one that is primary now), as the holder of {@code tls} (a user's credential),
     * or with plain connections as {@code user}. The first call checks that the name service is there.
     */
    public static FsClient connect(String names, Tls tls, String user) throws FsException {
        return connect(new FsClient(names, (address, epoch) -> FsConnection.open(address, tls, user, epoch)));
    }

    /**
     * A client that acts for {@code who.get()} (asked again for each new connection): a producer's, with its
     * credential {@code tls} and its task server's grant for the user.
     */
    public static FsClient connectFor(String names, Tls tls, java.util.function.Supplier<ActingFor> who)
            throws FsException {
        return connect(new FsClient(names, (address, epoch) -> FsConnection.open(address, tls, who.get(), epoch)));
    }

    /**
     * A client of the name service at {@code names} that reaches it and the file servers through the {@link FsRelay}
     * listening on the Unix socket {@code relay}: task code's way in, acting for its computation's owner.
     */
    public static FsClient viaRelay(String names, Path relay) throws FsException {
        return connect(new FsClient(names, (address, epoch) -> FsConnection.viaRelay(relay, address, epoch)));
    }

    private static FsClient connect(FsClient c) throws FsException {
        FsConnection first = c.connections.primary();
        c.identity = first.identity();
        c.connections.release(first);
        return c;
    }

    /** Who the name service takes this client for: the credential's name, or the declared user. */
    public String identity() {
        return identity;
    }

    // ---------------------------------------------------------------- names

    public Entry stat(String path) throws FsException {
        return Json.entry(connections.names(Json.op("stat").put("path", path)).get("entry"));
    }

    public List<Namespace.Named> list(String path) throws FsException {
        List<Namespace.Named> out = new ArrayList<>();
        for (JsonNode n : connections.names(Json.op("list").put("path", path)).path("entries")) {
            out.add(new Namespace.Named(n.path("name").asText(), Json.entry(n.get("entry"))));
        }
        return out;
    }

    public void mkdir(String path, boolean parents) throws FsException {
        connections.names(Json.op("mkdir").put("path", path).put("parents", parents));
    }

    public void remove(String path, boolean recursive) throws FsException {
        connections.names(Json.op("remove").put("path", path).put("recursive", recursive));
    }

    public void rename(String from, String to) throws FsException {
        connections.names(Json.op("rename").put("from", from).put("to", to));
    }

    public List<ServerInfo> servers() throws FsException {
        List<ServerInfo> out = new ArrayList<>();
        for (JsonNode s : connections.names(Json.op("servers")).path("servers")) {
            out.add(new ServerInfo(s.path("id").asText(), s.path("address").asText(), s.path("host").asText(),
                    s.path("capacity").asLong(), s.path("free").asLong(), s.path("alive").asBoolean()));
        }
        return out;
    }

    // ---------------------------------------------------------------- bytes

    /** How a new file is laid out: columns it is striped over, stripe unit, copies of each column. */
    public record Placement(int stripes, long stripeSize, int replicas, String only) {
        public static final Placement SINGLE = new Placement(1, 4L << 20, 1);

        public Placement {
            new Layout(0, stripeSize, stripes); // says what is wrong
            if (replicas < 1) {
                throw new IllegalArgumentException("at least one replica, not " + replicas);
            }
            only = only == null ? "" : only;
        }

        /** Anywhere. */
        public Placement(int stripes, long stripeSize, int replicas) {
            this(stripes, stripeSize, replicas, "");
        }

        /** The same, only on file servers that match {@code restriction} ({@link OnlyOn}). */
        public Placement onlyOn(String restriction) {
            return new Placement(stripes, stripeSize, replicas, restriction);
        }
    }

    /** As {@link #write(String, InputStream, long, Placement, Progress)}, on one file server. */
    public Entry write(String path, InputStream in, long expectedSize, Progress progress) throws IOException {
        return write(path, in, expectedSize, Placement.SINGLE, progress);
    }

    /**
     * Writes everything {@code in} gives as the file at {@code path}, made or replaced at once when all of it is
     * stored and checked on every replica; nothing of it is visible before, and nothing is left if it fails.
     */
    public Entry write(String path, InputStream in, long expectedSize, Placement placement, Progress progress)
            throws IOException {
        byte[] block = new byte[Blocks.SIZE];
        return write(path, () -> {
            int n = in.readNBytes(block, 0, block.length);
            return n == block.length ? block : Arrays.copyOf(block, n);
        }, expectedSize, placement, progress);
    }

    /**
     * As {@link #write(String, InputStream, long, Placement, Progress)}, the bytes given a block at a time, by a
     * source that already holds them in blocks (no copy into the client's own).
     */
    public Entry write(String path, BlockSource source, long expectedSize, Placement placement, Progress progress)
            throws IOException {
        ObjectNode place = connections.names(Json.op("place").put("path", path).put("size", Math.max(0, expectedSize))
                .put("stripes", placement.stripes()).put("replicas", placement.replicas())
                .put("only", placement.only()));
        List<Target> targets = new ArrayList<>();
        List<Entry.Column> columns = new ArrayList<>();
        int index = 0;
        for (JsonNode c : place.path("columns")) {
            List<String> ids = new ArrayList<>();
            for (JsonNode s : c.path("servers")) {
                ids.add(s.path("id").asText());
                targets.add(new Target(index, s.path("id").asText(), s.path("address").asText()));
            }
            columns.add(new Entry.Column(c.path("blob").asText(), ids));
            index++;
        }
        Layout layout = new Layout(Long.MAX_VALUE / 2, placement.stripeSize(), columns.size());
        List<List<Integer>> columnCrcs = new ArrayList<>();
        columns.forEach(c -> columnCrcs.add(new ArrayList<>()));
        List<Integer> crcs = new ArrayList<>();
        long size = 0;
        Target current = null;
        boolean naming = true;
        try {
            for (Target t : targets) {
                current = t;
                t.connection = connections.take(t.address);
                t.connection.send(Json.op("put").put("blob", columns.get(t.column).blob()));
            }
            for (int i = 0; ; i++) {
                byte[] block = source.next();
                int n = block.length;
                if (n == 0) {
                    break;
                }
                if (n > Blocks.SIZE) {
                    throw new IllegalArgumentException("a block of " + n + " bytes: at most " + Blocks.SIZE);
                }
                int crc = Blocks.crc(block, 0, n);
                crcs.add(crc);
                int column = layout.column(i);
                columnCrcs.get(column).add(crc);
                for (Target t : targets) {
                    if (t.column == column) {
                        current = t;
                        t.connection.data(block, 0, n);
                    }
                }
                size += n;
                progress.bytes(size, expectedSize);
                if (n < Blocks.SIZE) {
                    break;
                }
            }
            naming = source.name();
            for (Target t : targets) {
                current = t;
                ObjectNode end = Json.op("end").put("unnamed", !naming);
                end.set("crcs", Json.tree(columnCrcs.get(t.column)));
                t.connection.send(end);
            }
            for (Target t : targets) {
                current = t;
                t.connection.reply();
            }
        } catch (IOException e) {
            // Closing the connections makes each file server drop the part it received: nothing is named.
            targets.forEach(t -> {
                if (t.connection != null) {
                    t.connection.close();
                }
            });
            if (!(e instanceof FsException f)) {
                throw e; // the source failed (a local read, or a writer that gave the file up)
            }
            throw new FsException(f.code(), "writing " + path + " to file server " + current.id + " ("
                    + current.address + ") failed: " + f.getMessage() + "; " + path + " is as it was", f);
        }
        targets.forEach(t -> connections.release(t.connection));
        Entry file = new Entry(false, size, 0, identity, 0644, placement.stripeSize(), columns, crcs,
                placement.only());
        if (!naming) {
            Map<String, String> addresses = new HashMap<>();
            targets.forEach(t -> addresses.put(t.id, t.address));
            source.unnamed(new Opened(path, file, addresses));
            return file;
        }
        ObjectNode put = Json.op("put").put("path", path);
        put.set("entry", Json.tree(file));
        return Json.entry(connections.names(put).get("entry"));
    }

    /** One replica of one column of a file being written, and the connection it goes over. */
    private static final class Target {
        final int column;
        final String id;
        final String address;
        FsConnection connection;

        Target(int column, String id, String address) {
            this.column = column;
            this.id = id;
            this.address = address;
        }
    }

    /**
     * Writes the file at {@code path} to {@code out}, each block checked against its CRC32C. The columns of a
     * striped file are fetched in parallel; a column whose file server fails goes on from another replica.
     */
    public Entry read(String path, OutputStream out, Progress progress) throws IOException {
        Opened file = open(path);
        read(file, out, progress);
        return file.entry();
    }

    /** As {@link #read(String, OutputStream, Progress)}, for a file opened before. */
    public void read(Opened file, OutputStream out, Progress progress) throws IOException {
        Entry e = file.entry();
        long[] done = {0};
        BlockSink sink = (block, data, n) -> {
            out.write(data, 0, n);
            done[0] += n;
            progress.bytes(done[0], e.size());
        };
        if (e.columns().size() == 1 && e.layout().blocks() <= 1) {
            readColumn(file.path(), e, 0, file.addresses(), () -> new byte[Blocks.SIZE], sink);
        } else {
            new StripedRead(this, file.path(), e, file.addresses()).run(sink);
        }
    }

    private static Map<String, String> addressesOf(JsonNode reply) {
        Map<String, String> addresses = new HashMap<>();
        reply.path("addresses").properties().forEach(f -> addresses.put(f.getKey(),
                f.getValue().isTextual() ? f.getValue().asText() : null));
        return addresses;
    }

    /** A file opened for reading: its entry as it was when opened, and where its file servers are. */
    public record Opened(String path, Entry entry, Map<String, String> addresses) {
    }

    /** Looks up the file at {@code path} for reading (close-to-open: later changes are not seen through it). */
    public Opened open(String path) throws FsException {
        ObjectNode read = connections.names(Json.op("read").put("path", path));
        return new Opened(path, Json.entry(read.get("entry")), addressesOf(read));
    }

    /** Reads blocks {@code first} to {@code first + count - 1} of an opened file into {@code sink}, in order. */
    public void readBlocks(Opened file, int first, int count, BlockSink sink) throws IOException {
        byte[] shared = new byte[Blocks.SIZE];
        readBlocks(file, first, count, () -> shared, sink);
    }

    /**
     * As {@link #readBlocks(Opened, int, int, BlockSink)}, each block read into a buffer of {@link Blocks#SIZE} bytes
     * from {@code buffers}, which the sink may keep.
     */
    public void readBlocks(Opened file, int first, int count, java.util.function.Supplier<byte[]> buffers,
                           BlockSink sink) throws IOException {
        Layout layout = file.entry().layout();
        int end = Math.min(layout.blocks(), first + count);
        int i = first;
        while (i < end) {
            int c = layout.column(i);
            List<Integer> run = new ArrayList<>();
            while (i < end && layout.column(i) == c) {
                run.add(i++);
            }
            readRun(file.path(), file.entry(), c, run, file.addresses(), buffers, sink);
        }
    }

    /** Gives the bytes of a file being written, a block at a time. */
    @FunctionalInterface
    public interface BlockSource {
        /**
         * The next block: {@link Blocks#SIZE} bytes, or fewer (none at all, perhaps) for the file's last. The caller
         * is done with it when it asks for the next one, so a source may hand the same array out again.
         */
        byte[] next() throws IOException;

        /**
         * Asked after the last block: whether the file is named now. A source that says no gets its blocks back as
         * {@link #unnamed}: stored and checked on their file servers, in no directory, until {@link #discard}
         * deletes them (or, left there, {@code cx fs fsck --repair} once they are old).
         */
        default boolean name() {
            return true;
        }

        /** The blocks of a file not named, where they can be read. */
        default void unnamed(Opened file) {
        }
    }

    /** Takes the blocks of a file, in order. */
    @FunctionalInterface
    public interface BlockSink {
        void block(int index, byte[] data, int length) throws IOException;
    }

    /**
     * Reads column {@code c} of {@code e} into {@code sink}, block by block in order, from its first replica that
     * answers, going on from the next one where a replica fails.
     */
    void readColumn(String path, Entry e, int c, Map<String, String> addresses,
                    java.util.function.Supplier<byte[]> buffers, BlockSink sink) throws IOException {
        readRun(path, e, c, e.layout().blocksOf(c), addresses, buffers, sink);
    }

    /**
     * Reads {@code blocks} (consecutive blocks of column {@code c}) into {@code sink}, in order, from the column's
     * first replica that answers, going on from the next one where a replica fails.
     */
    private void readRun(String path, Entry e, int c, List<Integer> blocks, Map<String, String> addresses,
                         java.util.function.Supplier<byte[]> buffers, BlockSink sink) throws IOException {
        Layout layout = e.layout();
        Entry.Column column = e.columns().get(c);
        int next = 0;
        List<String> failures = new ArrayList<>();
        for (String server : column.servers()) {
            if (next == blocks.size()) {
                break;
            }
            String address = addresses.get(server);
            if (address == null) {
                failures.add(server + " is not registered now");
                continue;
            }
            FsConnection conn = null;
            try {
                conn = connections.take(address);
                long offset = layout.indexInColumn(blocks.get(next)) * Blocks.SIZE;
                long length = 0;
                for (int k = next; k < blocks.size(); k++) {
                    length += layout.blockLength(blocks.get(k));
                }
                long sent = conn.call(Json.op("get").put("blob", column.blob()).put("offset", offset)
                        .put("length", length)).path("length").asLong();
                if (sent != length) {
                    throw new FsException(Code.EIO, "it holds " + sent + " of the " + length + " bytes due");
                }
                while (next < blocks.size()) {
                    int i = blocks.get(next);
                    byte[] data = buffers.get();
                    int n = conn.readData(data);
                    if (n != layout.blockLength(i) || Blocks.crc(data, 0, n) != e.crcs().get(i)) {
                        throw new FsException(Code.EIO, "block " + i + " does not match its checksum");
                    }
                    sink.block(i, data, n);
                    next++;
                }
                connections.release(conn);
            } catch (FsException x) {
                if (conn != null) {
                    conn.close();
                }
                failures.add(server + " (" + address + "): " + x.getMessage());
            } catch (IOException | RuntimeException x) {
                if (conn != null) {
                    conn.close(); // the sink failed, or the read was abandoned: the rest of the reply is not read
                }
                throw x;
            }
        }
        if (next < blocks.size()) {
            throw new FsException(Code.EIO, "reading " + path + " failed: no replica could give block "
                    + blocks.get(next) + (failures.isEmpty() ? "" : "; file server " + String.join("; ", failures))
                    + (column.servers().size() == 1 ? "" : "; run cx fs fsck --repair"));
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
        ObjectNode adopted = connections.onServer(s.address(), Json.op("adopt").put("path", hostPath));
        List<Integer> crcs = new ArrayList<>();
        adopted.path("crcs").forEach(c -> crcs.add(c.asInt()));
        Entry file = new Entry(false, adopted.path("size").asLong(), 0, identity, 0644, Placement.SINGLE.stripeSize(),
                List.of(new Entry.Column(adopted.path("blob").asText(), List.of(s.id()))), crcs);
        ObjectNode put = Json.op("put").put("path", path);
        put.set("entry", Json.tree(file));
        return Json.entry(connections.names(put).get("entry"));
    }

    /** A file as fsck sees it: its path, entry, and the address of each of its file servers (null: not up). */
    public record FileInfo(String path, Entry entry, Map<String, String> addresses) {
    }

    /** Every file under {@code path} (or it). */
    public List<FileInfo> files(String path) throws FsException {
        List<FileInfo> out = new ArrayList<>();
        for (JsonNode f : connections.names(Json.op("files").put("path", path)).path("files")) {
            out.add(new FileInfo(f.path("path").asText(), Json.entry(f.get("entry")), addressesOf(f)));
        }
        return out;
    }

    /** Records that column {@code index} of the file at {@code path} is now on {@code column}'s servers. */
    public void relocate(String path, int index, Entry.Column column) throws FsException {
        ObjectNode r = Json.op("relocate").put("path", path).put("index", index);
        r.set("column", Json.tree(column));
        connections.names(r);
    }

    /**
     * Copies blob {@code blob} of {@code size} bytes (its blocks' CRC32Cs {@code crcs}) from the file server at
     * {@code from} to the one at {@code to}: how fsck makes a missing replica again.
     */
    public void copyBlob(String blob, long size, List<Integer> crcs, String from, String to) throws FsException {
        FsConnection source = connections.take(from);
        FsConnection target = connections.take(to);
        try {
            long length = source.call(Json.op("get").put("blob", blob).put("offset", 0).put("length", size))
                    .path("length").asLong();
            target.send(Json.op("put").put("blob", blob));
            byte[] data = new byte[Blocks.SIZE];
            for (long done = 0; done < length; ) {
                int n = source.readData(data);
                target.data(data, 0, n);
                done += n;
            }
            ObjectNode end = Json.op("end");
            end.set("crcs", Json.tree(crcs));
            target.call(end);
            connections.release(source);
            connections.release(target);
        } catch (FsException e) {
            source.close();
            target.close();
            throw e;
        }
    }

    /** A blob on a file server's disk, named or not. */
    public record BlobInfo(String blob, long size, long ageSeconds) {
    }

    /** Every blob on file server {@code address} (only an admin, or anyone on plain connections, may ask). */
    public List<BlobInfo> blobs(String address) throws FsException {
        List<BlobInfo> out = new ArrayList<>();
        for (JsonNode b : connections.onServer(address, Json.op("blobs")).path("blobs")) {
            out.add(new BlobInfo(b.path("blob").asText(), b.path("size").asLong(), b.path("ageSeconds").asLong()));
        }
        return out;
    }

    /**
     * Deletes the blocks of a file written and not named ({@link BlockSource#name}) from its file servers, each of
     * which lets the caller that stored them do so for an hour. A file server that cannot be reached keeps its copy
     * as an orphan; that is logged, not thrown.
     */
    public void discard(Opened unnamed) {
        for (Entry.Column column : unnamed.entry().columns()) {
            for (String server : column.servers()) {
                String address = unnamed.addresses().get(server);
                try {
                    if (address != null) {
                        deleteBlob(address, column.blob());
                    }
                } catch (FsException e) {
                    LOG.warn("blob {} of {} stays on file server {} as an orphan: {}", column.blob(), unnamed.path(),
                            server, e.getMessage());
                }
            }
        }
    }

    /**
     * Deletes {@code blob} from file server {@code address}: for blobs nothing names (only an admin may, or the caller
     * that stored it unnamed).
     */
    public void deleteBlob(String address, String blob) throws FsException {
        connections.onServer(address, Json.op("delete").put("blob", blob));
    }

    /** The size and block checksums file server {@code address} finds for {@code blob} now. */
    public JsonNode check(String address, String blob) throws FsException {
        return connections.onServer(address, Json.op("check").put("blob", blob));
    }

    // ---------------------------------------------------------------- connections

    @Override
    public void close() {
        connections.close();
    }
}
