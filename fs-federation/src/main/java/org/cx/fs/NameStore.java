package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The name service's namespace on disk: a snapshot ({@code snapshot.json}) and a journal of the changes after it
 * ({@code journal.jsonl}, one JSON record a line, each with a sequence number). A change is applied and appended by
 * {@link #commit}; {@link #sync} forces the appended records to the disk, and the name service answers no change
 * before that. On start the snapshot is read and the journal replayed; a last line cut short by a crash (never
 * acknowledged) is dropped. When the journal outgrows {@link #SNAPSHOT_AFTER_BYTES} a new snapshot replaces both.
 */
final class NameStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NameStore.class);
    static final long SNAPSHOT_AFTER_BYTES = 64L << 20;
    private static final String SNAPSHOT = "snapshot.json";
    private static final String JOURNAL = "journal.jsonl";

    private final Path dir;
    private final Namespace namespace;
    private FileChannel journal;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    /** Records committed since {@link #takeCommitted}: what a standby must apply too. */
    private final ArrayNode committed = Json.MAPPER.createArrayNode();
    private long seq;
    private long journalBytes;

    private NameStore(Path dir, Namespace namespace, long seq) {
        this.dir = dir;
        this.namespace = namespace;
        this.seq = seq;
    }

    /** Opens (or makes) the store in {@code dir}; a new namespace's root belongs to {@code rootOwner}. */
    static NameStore open(Path dir, String rootOwner, long now) throws IOException {
        Files.createDirectories(dir);
        Namespace ns = new Namespace(rootOwner, now);
        long seq = 0;
        Path snapshot = dir.resolve(SNAPSHOT);
        if (Files.exists(snapshot)) {
            JsonNode s = Json.MAPPER.readTree(snapshot.toFile());
            seq = s.path("seq").asLong();
            for (JsonNode e : s.path("entries")) {
                ns.restore(FsPath.of(e.path("path").asText()), Json.entry(e.path("entry")));
            }
        }
        NameStore store = new NameStore(dir, ns, seq);
        int replayed = store.replay();
        store.journal = FileChannel.open(dir.resolve(JOURNAL), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        store.journalBytes = store.journal.size();
        LOG.info("name store {}: snapshot at {}, {} journal records replayed", dir, seq, replayed);
        return store;
    }

    private int replay() throws IOException {
        Path file = dir.resolve(JOURNAL);
        if (!Files.exists(file)) {
            return 0;
        }
        int replayed = 0;
        long good = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode record;
                try {
                    record = Json.MAPPER.readTree(line);
                } catch (IOException e) {
                    LOG.warn("name store {}: the journal's last record was cut short by a crash (it was never "
                            + "acknowledged): dropped", dir);
                    break;
                }
                good += line.getBytes(StandardCharsets.UTF_8).length + 1;
                long s = record.path("seq").asLong();
                if (s > seq) {
                    apply(record);
                    seq = s;
                    replayed++;
                }
            }
        }
        if (good < Files.size(file)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(good);
                ch.force(true);
            }
        }
        return replayed;
    }

    Namespace namespace() {
        return namespace;
    }

    /**
     * Applies {@code record} (a checked change) to the namespace and appends it to the journal; returns the files
     * whose bytes are no longer named (removed or replaced). Durable after the next {@link #sync}.
     */
    List<Entry> commit(ObjectNode record) throws IOException {
        record.put("seq", ++seq);
        List<Entry> freed = apply(record);
        append(record);
        return freed;
    }

    /**
     * Applies and appends a record the primary committed (a standby's step), keeping its sequence number; one at or
     * below this store's is skipped (it was applied before).
     */
    void replicate(JsonNode record) throws IOException {
        long s = record.path("seq").asLong();
        if (s <= seq) {
            return;
        }
        if (s != seq + 1) {
            throw new IOException("record " + s + " after " + seq + ": a gap in the primary's journal");
        }
        apply(record);
        seq = s;
        append((ObjectNode) record);
    }

    private void append(ObjectNode record) throws IOException {
        pending.write(Json.MAPPER.writeValueAsBytes(record));
        pending.write('\n');
        committed.add(record);
    }

    /** The records committed since the last call, in order. */
    ArrayNode takeCommitted() {
        ArrayNode out = committed.deepCopy();
        committed.removeAll();
        return out;
    }

    /** The sequence number of the last record committed. */
    long seq() {
        return seq;
    }

    /** Writes the records committed since the last call and forces them to the disk. */
    void sync() throws IOException {
        if (pending.size() == 0) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(pending.toByteArray());
        pending.reset();
        while (b.hasRemaining()) {
            journalBytes += journal.write(b);
        }
        journal.force(false);
        if (journalBytes > SNAPSHOT_AFTER_BYTES) {
            snapshot();
        }
    }

    private List<Entry> apply(JsonNode r) throws FsException {
        long time = r.path("time").asLong();
        return switch (r.path("op").asText()) {
            case "mkdir" -> {
                namespace.applyMkdir(Json.path(r, "path"), Json.text(r, "owner"), r.path("mode").asInt(), time);
                yield List.of();
            }
            case "put" -> {
                Entry old = namespace.applyPut(Json.path(r, "path"), Json.entry(r.path("entry")), time);
                yield old == null ? List.of() : List.of(old);
            }
            case "remove" -> namespace.applyRemove(Json.path(r, "path"), time);
            case "rename" -> {
                Entry old = namespace.applyRename(Json.path(r, "from"), Json.path(r, "to"), time);
                yield old == null ? List.of() : List.of(old);
            }
            default -> throw new FsException(FsException.Code.EINVAL, "unknown journal record " + r);
        };
    }

    /** The whole namespace as a snapshot holds it: what a new standby starts from. */
    ObjectNode snapshotJson() throws FsException {
        ObjectNode s = Json.object().put("seq", seq);
        ArrayNode entries = s.putArray("entries");
        for (Map.Entry<FsPath, Entry> e : namespace.all()) {
            entries.addObject().put("path", e.getKey().toString()).set("entry", Json.tree(e.getValue()));
        }
        return s;
    }

    /**
     * Replaces this store's content with {@code snapshot} (a primary's, as {@link #snapshotJson} made it): written
     * as this store's snapshot, with an empty journal; returns the store reopened on it.
     */
    NameStore replaceWith(JsonNode snapshot, String rootOwner, long now) throws IOException {
        sync();
        journal.close();
        writeSnapshot((ObjectNode) snapshot);
        try (FileChannel ch = FileChannel.open(dir.resolve(JOURNAL), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.force(true);
        }
        return open(dir, rootOwner, now);
    }

    /** Writes the whole namespace as a new snapshot, then starts an empty journal. */
    void snapshot() throws IOException {
        writeSnapshot(snapshotJson());
        journal.truncate(0); // records up to seq are in the snapshot; any left by a crash here are skipped on replay
        journal.force(true);
        journalBytes = 0;
    }

    private void writeSnapshot(ObjectNode s) throws IOException {
        Path tmp = dir.resolve(SNAPSHOT + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(Json.MAPPER.writeValueAsBytes(s));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(dir);
    }

    static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // not every file system lets a directory be opened; the rename is then as durable as it gets
        }
    }

    @Override
    public void close() throws IOException {
        sync();
        journal.close();
    }
}
