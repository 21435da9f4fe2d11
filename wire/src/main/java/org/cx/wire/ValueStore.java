package org.cx.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The large values one process holds: values a task made here, and values that arrived in chunks ahead of a message
 * referring to them ({@link ValueLink}). Each is held in memory, as the chunks it travels in, while the values so
 * held fit {@linkplain #memoryBudget() a budget}, and otherwise in a file of the store's directory. The chunks are
 * reference-counted buffers off the heap (on it for a store {@linkplain #inMemory in memory}): the heap neither
 * zeroes them when they are made nor copies them while they are held, and TLS encrypts them where they lie; a
 * sender or reader takes a reference of its own, so a value let go meanwhile stays whole for it. A value over
 * {@linkplain #inlineLimit() the inline limit} is never copied whole into one buffer on its way: it is encoded a
 * chunk at a time, sent a chunk at a time (from a file as the connection drains), kept as it arrives, and decoded
 * from its chunks. A value goes when nothing will read it again ({@link #release}), or at the latest when its
 * computation ends; the directory goes when the process closes the store.
 * Thread-safe.
 *
 * <p>Over 500 lines because its three ways a value passes ({@link Spill} as a task writes it, {@link Chunks} as it
 * is sent, {@link Arrival} as it comes in) are inner classes over the store's one map and one memory budget: what
 * one of them holds in memory or spills to a file is what the others must count.
 */
public final class ValueStore implements AutoCloseable {
    /**
     * Bytes per chunk on the wire: one frame each. A quarter of a MiB, so that a frame, its encrypted form and the
     * buffer it arrives in stay under Netty's largest pooled buffer (1 MiB): larger ones are allocated and zeroed
     * for each frame, which cost a 256 MiB value's hop over TLS a tenth of its speed.
     */
    public static final int CHUNK_BYTES = 256 << 10;
    /** The default of {@link #inlineLimit()}. */
    public static final long DEFAULT_INLINE_BYTES = 1 << 20;

    private final Path dir;
    private final long memoryBudget;
    private final long inlineBytes;
    private final int chunkBytes;
    /** Draws values' ids; null: the thread's own random generator. */
    private final java.util.random.RandomGenerator ids;
    private final java.util.function.LongSupplier millis;
    private final Map<ValueRef, Held> held = new ConcurrentHashMap<>();
    private final AtomicLong heldBytes = new AtomicLong();
    /** Bytes of this store's values held in memory, or reserved by those being made or arriving there. */
    private final AtomicLong inMemory = new AtomicLong();
    /**
     * The same, of every store in this process that shares the process's budget: servers, producers and consumers
     * started in one JVM (tests, benchmarks) share its heap.
     */
    private static final AtomicLong IN_MEMORY_IN_PROCESS = new AtomicLong();
    /** The counter the budget bounds: the process's, or this store's own if it was given a budget of its own. */
    private final AtomicLong budgeted;
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesRelayed = new AtomicLong();
    private final AtomicLong released = new AtomicLong();
    private final List<java.util.function.Consumer<ValueRef>> releaseListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * A value held: in memory as its chunks, or in a file; since when (for {@link #sweep}); and how many copies of it
     * came here (made or arrived), each for a role this process plays, of which {@link #letGo} lets one go (changed
     * only inside the map's atomic updates).
     */
    private static final class Held {
        final List<ByteBuf> chunks;
        final Path file;
        final long sinceMillis;
        int copies = 1;
        /** Its chunks were released: nobody may take a reference to them any more. Guarded by this. */
        private boolean freed;

        Held(List<ByteBuf> chunks, Path file, long sinceMillis) {
            this.chunks = chunks;
            this.file = file;
            this.sinceMillis = sinceMillis;
        }

        /** A reference of the caller's own to each chunk; null once the value was let go. */
        synchronized List<ByteBuf> borrow() {
            if (freed) {
                return null;
            }
            List<ByteBuf> mine = new ArrayList<>(chunks.size());
            chunks.forEach(c -> mine.add(c.retainedDuplicate()));
            return mine;
        }

        /** Releases the store's reference to the chunks: the memory goes once every borrower released theirs. */
        synchronized void free() {
            if (!freed) {
                freed = true;
                chunks.forEach(ByteBuf::release);
            }
        }
    }

    /** A store that shares the process's {@linkplain #memoryBudget() memory budget} with its other stores. */
    public ValueStore(Path dir) {
        this(dir, memoryBudget(), IN_MEMORY_IN_PROCESS, inlineLimit(), CHUNK_BYTES, null, System::currentTimeMillis);
    }

    /** @param memoryBudget bytes of values this store holds in memory at most; the rest go to files in {@code dir} */
    public ValueStore(Path dir, long memoryBudget) {
        this(dir, memoryBudget, new AtomicLong(), inlineLimit(), CHUNK_BYTES, null, System::currentTimeMillis);
    }

    /**
     * A store with no directory that holds every value in memory, with an inline limit and a chunk size of its own,
     * drawing values' ids from {@code ids} and telling time by {@code millis}: for a simulation, where a seed must run
     * the same way every time and small values stand in for large ones.
     */
    public static ValueStore inMemory(long inlineBytes, int chunkBytes, java.util.random.RandomGenerator ids,
                                      java.util.function.LongSupplier millis) {
        return new ValueStore(null, Long.MAX_VALUE, new AtomicLong(), inlineBytes, chunkBytes, ids, millis);
    }

    private ValueStore(Path dir, long memoryBudget, AtomicLong budgeted, long inlineBytes, int chunkBytes,
                       java.util.random.RandomGenerator ids, java.util.function.LongSupplier millis) {
        this.dir = dir;
        this.memoryBudget = memoryBudget;
        this.budgeted = budgeted;
        this.inlineBytes = inlineBytes;
        this.chunkBytes = chunkBytes;
        this.ids = ids;
        this.millis = millis;
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the value store " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * A store in a new directory under {@code java.io.tmpdir}, named after its owner and this process, deleted on
     * {@link #close}; the directories that processes killed before they could close theirs are deleted first.
     */
    public static ValueStore temporary(String owner) {
        try {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            deleteLeftBehind(tmp);
            return new ValueStore(Files.createTempDirectory(tmp, "cx-values-" + owner.replaceAll("[^A-Za-z0-9._-]",
                    "_") + "-p" + ProcessHandle.current().pid() + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a value store under " + System.getProperty("java.io.tmpdir")
                    + ": " + e.getMessage(), e);
        }
    }

    private static final java.util.regex.Pattern LEFT_BEHIND = java.util.regex.Pattern.compile(
            "cx-values-.*-p(\\d+)-[^-]*");

    /** Deletes the store directories in {@code tmp} of processes that are no longer running. */
    static void deleteLeftBehind(Path tmp) {
        try (var entries = Files.list(tmp)) {
            for (Path dir : (Iterable<Path>) entries::iterator) {
                java.util.regex.Matcher m = LEFT_BEHIND.matcher(dir.getFileName().toString());
                if (m.matches() && Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    try (var files = Files.list(dir)) {
                        files.forEach(f -> f.toFile().delete());
                    }
                    dir.toFile().delete();
                }
            }
        } catch (IOException | NumberFormatException | UncheckedIOException e) {
            // another process is at it, or the directory is not ours to clean: leave it
        }
    }

    /**
     * Encoded values larger than this travel by reference: {@code -Dcx.valueInlineBytes}, by default
     * {@value #DEFAULT_INLINE_BYTES}. Every process of a network should use the same.
     */
    public static long inlineLimit() {
        return Long.getLong("cx.valueInlineBytes", DEFAULT_INLINE_BYTES);
    }

    /**
     * Bytes of large values a process holds in memory before it writes them to files: {@code -Dcx.valueMemoryBytes},
     * by default an eighth of the heap, at most 1 GiB, and at most a quarter of the native memory the JVM may give
     * buffers ({@code -XX:MaxDirectMemorySize}, by default the heap's size), where the chunks are held.
     */
    public static long memoryBudget() {
        long heap = Runtime.getRuntime().maxMemory();
        long direct = io.netty.util.internal.PlatformDependent.estimateMaxDirectMemory(); // the option, else the heap
        return Long.getLong("cx.valueMemoryBytes", Math.min(Math.min(heap / 8, 1L << 30), direct / 4));
    }

    /** Its directory; null for a store {@linkplain #inMemory in memory}. */
    public Path directory() {
        return dir;
    }

    /** Encoded values larger than this are held here and travel by reference: {@link #inlineLimit()}, or a test's. */
    public long inlineBytes() {
        return inlineBytes;
    }

    /** A stream to encode a value of {@code computation} into; {@link Spill#finish} says how it travels. */
    public Spill spill(long computation) {
        return new Spill(computation);
    }

    /** Holds {@code bytes} already encoded: as they are if small, else by reference. */
    public byte[] keep(long computation, byte[] bytes) {
        if (bytes.length <= inlineBytes) {
            return bytes;
        }
        Spill s = spill(computation);
        try (s) {
            s.write(bytes);
            return s.finish();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store a value of " + bytes.length + " bytes in " + dir + ": "
                    + e.getMessage(), e);
        }
    }

    public boolean holds(ValueRef ref) {
        return held.containsKey(ref);
    }

    /** The value's bytes, to decode; fails saying so if this process does not hold it. */
    public InputStream open(ValueRef ref) {
        Held h = held.get(ref);
        if (h == null) {
            throw new IllegalStateException(ref + " is not held by this process: it did not arrive ahead of the "
                    + "message referring to it, or its computation has ended here");
        }
        if (h.chunks != null) {
            List<ByteBuf> mine = h.borrow();
            if (mine == null) {
                throw new IllegalStateException(ref + " was let go while it was opened: its computation ended here");
            }
            return new InMemory(Unpooled.wrappedBuffer(mine.toArray(ByteBuf[]::new)));
        }
        try {
            return new BufferedInputStream(Files.newInputStream(h.file), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ref + " from " + h.file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A held value's bytes in memory, read as a stream or, by a primitive array's decoder, a run at a time straight
     * from its chunks ({@link #bytes}); the chunks' references go on close.
     */
    static final class InMemory extends ByteBufInputStream {
        private final ByteBuf bytes;

        private InMemory(ByteBuf bytes) {
            super(bytes, true);
            this.bytes = bytes;
        }

        /** The value's bytes from where the stream stands; reading them moves the stream on. */
        ByteBuf bytes() {
            return bytes;
        }
    }

    /** The value's bytes in chunks, to send. */
    public Chunks chunks(ValueRef ref) throws IOException {
        Held h = held.get(ref);
        if (h == null) {
            throw new IOException(ref + " is not held by this process, so it cannot be sent");
        }
        if (h.chunks == null) {
            return new Chunks(ref, null, FileChannel.open(h.file, StandardOpenOption.READ));
        }
        List<ByteBuf> mine = h.borrow();
        if (mine == null) {
            throw new IOException(ref + " was let go here meanwhile, so it cannot be sent");
        }
        return new Chunks(ref, mine, null);
    }

    /** An arrival of {@code ref}'s chunks, in order, on one connection. */
    public Arrival arrival(ValueRef ref) {
        return new Arrival(ref);
    }

    /** Lets the values of {@code computation} go. */
    public void drop(long computation) {
        held.entrySet().removeIf(e -> {
            if (e.getKey().computation() != computation) {
                return false;
            }
            release(e.getKey(), e.getValue());
            return true;
        });
    }

    /** Lets go {@code ref}, if held here: nothing will read it again (the task it was an input of is done). */
    public void release(ValueRef ref) {
        Held h = held.remove(ref);
        if (h != null) {
            freeAndTell(ref, h);
        }
    }

    /** {@code ref}, held as {@code h}, is gone from the map: frees it and tells the listeners. */
    private void freeAndTell(ValueRef ref, Held h) {
        release(ref, h);
        released.incrementAndGet();
        releaseListeners.forEach(l -> l.accept(ref));
    }

    /**
     * Lets go one copy of {@code ref}, if held here: this process handed the value on in one of the roles it holds it
     * for (a server routed it to another). The value goes with its last copy; one that came here again meanwhile (a
     * task that reads it came back) stays.
     */
    public void letGo(ValueRef ref) {
        Held[] gone = new Held[1];
        held.computeIfPresent(ref, (r, h) -> {
            if (h.copies > 1) {
                h.copies--;
                return h;
            }
            gone[0] = h;
            return null;
        });
        if (gone[0] != null) {
            freeAndTell(ref, gone[0]);
        }
    }

    /**
     * Calls {@code listener} with every value {@link #release} or {@link #letGo} lets go from now on, on the releasing
     * thread: the processes this one passed values to (a producer's worker processes) may let them go too.
     */
    public void onRelease(java.util.function.Consumer<ValueRef> listener) {
        releaseListeners.add(listener);
    }

    /** Stops calling {@code listener}. */
    public void removeReleaseListener(java.util.function.Consumer<ValueRef> listener) {
        releaseListeners.remove(listener);
    }

    /** Values let go by {@link #release} (before their computation ended) since the store opened. */
    public long released() {
        return released.get();
    }

    /**
     * Lets go the values of computations {@code known} rejects that have been held at least {@code minAgeNanos}:
     * younger ones may be the values of a computation about to arrive.
     */
    public void sweep(long minAgeNanos, java.util.function.LongPredicate known) {
        long cutoff = millis.getAsLong() - minAgeNanos / 1_000_000;
        held.entrySet().removeIf(e -> {
            if (known.test(e.getKey().computation()) || e.getValue().sinceMillis > cutoff) {
                return false;
            }
            release(e.getKey(), e.getValue());
            return true;
        });
    }

    /** Values held now. */
    public int count() {
        return held.size();
    }

    /** Bytes of the values held now. */
    public long heldBytes() {
        return heldBytes.get();
    }

    /** Bytes of values held in memory now (or reserved there by values being made or arriving). */
    public long memoryBytes() {
        return inMemory.get();
    }

    /** Bytes of values that arrived from other processes since the store opened. */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    /** Bytes of values sent to other processes since the store opened. */
    public long bytesSent() {
        return bytesSent.get();
    }

    /** Counts {@code bytes} of a value passed on to another process as they arrived here ({@link ValueLink#relay}). */
    void relayed(int bytes) {
        bytesSent.addAndGet(bytes);
        bytesRelayed.addAndGet(bytes);
    }

    /** Of {@link #bytesSent}, those passed on as they arrived, before the value was whole here. */
    public long bytesRelayed() {
        return bytesRelayed.get();
    }

    @Override
    public void close() {
        held.forEach(this::release);
        held.clear();
        if (dir == null) {
            return;
        }
        try (var left = Files.list(dir)) {
            left.forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // already gone
        }
        dir.toFile().delete();
    }

    private void release(ValueRef ref, Held h) {
        heldBytes.addAndGet(-ref.size());
        if (h.chunks != null) {
            memory(-ref.size());
            h.free();
        } else {
            h.file.toFile().delete();
        }
    }

    /** Reserves {@code bytes} of the memory budget. @return false, reserving nothing, if they do not fit */
    private boolean reserve(long bytes) {
        while (true) {
            long now = budgeted.get();
            if (now + bytes > memoryBudget) {
                return false;
            }
            if (budgeted.compareAndSet(now, now + bytes)) {
                inMemory.addAndGet(bytes);
                return true;
            }
        }
    }

    /** Adds {@code bytes} (negative: releases them) to what this store holds in memory, and to the budget's count. */
    private void memory(long bytes) {
        inMemory.addAndGet(bytes);
        budgeted.addAndGet(bytes);
    }

    private Path temporaryFile() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return dir.resolve(".part-" + Long.toUnsignedString(r.nextLong(), 16));
    }

    /** A buffer for {@code bytes} of a value: off the heap, or on it for a store in memory (a simulation's). */
    private ByteBuf newChunk(int bytes) {
        return dir == null ? Unpooled.buffer(bytes) : ChunkPool.SHARED.take(bytes);
    }

    /**
     * Holds {@code ref}, whose bytes are {@code chunks} (their memory reserved) or {@code file}; a value held already
     * keeps its bytes, counts one more copy, and the new bytes go.
     */
    private void adopt(ValueRef ref, List<ByteBuf> chunks, Path file) throws IOException {
        Path target = null;
        if (file != null && !held.containsKey(ref)) {
            target = dir.resolve(ref.fileName());
            Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        Held h = new Held(chunks, target, millis.getAsLong());
        boolean[] added = new boolean[1];
        if (chunks != null || target != null) {
            held.compute(ref, (r, was) -> {
                added[0] = was == null;
                if (was == null) {
                    return h;
                }
                was.copies++;
                return was;
            });
        }
        if (added[0]) {
            heldBytes.addAndGet(ref.size());
            return;
        }
        if (chunks != null) {
            memory(-ref.size());
            h.free();
        }
        Path unused = target != null ? target : file;
        if (unused != null) {
            Files.deleteIfExists(unused);
        }
    }

    /** Bytes going into a value: to memory while the budget allows, then to a file. */
    private abstract class Sink {
        private List<ByteBuf> chunks = new ArrayList<>();
        private long reserved;
        private Path file;
        private FileChannel out;

        /** Takes {@code data}'s readable bytes, and with them the caller's reference: the caller must not change it. */
        void add(ByteBuf data) throws IOException {
            int n = data.readableBytes();
            if (out == null && reserve(n)) {
                reserved += n;
                chunks.add(data);
                return;
            }
            try {
                if (out == null) {
                    List<ByteBuf> inMemory = chunks;
                    chunks = null;
                    memory(-reserved);
                    reserved = 0;
                    try {
                        file = temporaryFile();
                        out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                        for (ByteBuf c : inMemory) {
                            write(c);
                        }
                    } finally {
                        inMemory.forEach(ByteBuf::release);
                    }
                }
                write(data);
            } finally {
                data.release();
            }
        }

        private void write(ByteBuf data) throws IOException {
            ByteBuffer b = data.nioBuffer();
            while (b.hasRemaining()) {
                out.write(b);
            }
        }

        boolean inMemory() {
            return out == null;
        }

        /** Holds what came in as {@code ref}. */
        void hold(ValueRef ref) throws IOException {
            if (out != null) {
                out.close();
                out = null;
            }
            List<ByteBuf> kept = file == null ? chunks : null;
            Path written = file;
            chunks = null;
            file = null;
            // adopt takes the reservation over (memory) or the file; nothing is left for close
            memory(kept == null ? 0 : ref.size() - reserved);
            reserved = 0;
            adopt(ref, kept, written);
        }

        /** What came in, then {@code tail} (released), {@code size} bytes in all, as one array; nothing is held. */
        byte[] drain(ByteBuf tail, long size) throws IOException {
            byte[] all = new byte[(int) size];
            try {
                int at = 0;
                if (out != null) {
                    out.close();
                    out = null;
                    try (InputStream in = Files.newInputStream(file)) {
                        at = in.readNBytes(all, 0, (int) size - tail.readableBytes());
                    }
                } else {
                    for (ByteBuf c : chunks) {
                        c.getBytes(c.readerIndex(), all, at, c.readableBytes());
                        at += c.readableBytes();
                    }
                }
                tail.getBytes(tail.readerIndex(), all, at, tail.readableBytes());
            } finally {
                tail.release();
                discard();
            }
            return all;
        }

        /** Lets go of what came in unless it is held. */
        void discard() throws IOException {
            if (out != null) {
                out.close();
                out = null;
            }
            if (file != null) {
                Files.deleteIfExists(file);
                file = null;
            }
            memory(-reserved);
            reserved = 0;
            if (chunks != null) {
                chunks.forEach(ByteBuf::release);
                chunks = null;
            }
        }
    }

    /** A value being encoded: kept inline if it stays small, else held by reference. */
    public final class Spill extends OutputStream {
        private final long computation;
        private final long limit = inlineBytes;
        private final CRC32C crc = new CRC32C();
        private final Sink sink = new Sink() {
        };
        /** The value's first bytes, on the heap while the value may still turn out small. */
        private byte[] buffer = new byte[Math.min(4096, chunkBytes)];
        private int buffered;
        /** The chunk being filled once the value outgrew {@link #buffer}; null before. */
        private ByteBuf current;
        private long size;
        private boolean finished;

        private Spill(long computation) {
            this.computation = computation;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            crc.update(b, off, len);
            size += len;
            while (len > 0) {
                int n;
                if (current != null) {
                    nextChunkIfFull();
                    n = Math.min(len, current.writableBytes());
                    current.writeBytes(b, off, n);
                } else {
                    if (buffered == buffer.length) {
                        if (buffer.length < chunkBytes) {
                            buffer = java.util.Arrays.copyOf(buffer, Math.min(chunkBytes, 2 * buffer.length));
                        } else {
                            moveBufferToChunk();
                            continue;
                        }
                    }
                    n = Math.min(len, buffer.length - buffered);
                    System.arraycopy(b, off, buffer, buffered, n);
                    buffered += n;
                }
                off += n;
                len -= n;
            }
        }

        /** The value outgrew the heap: its first bytes go into its first chunk. */
        private void moveBufferToChunk() throws IOException {
            current = newChunk(chunkBytes).writeBytes(buffer, 0, buffered);
            buffered = 0;
        }

        private void nextChunkIfFull() throws IOException {
            if (!current.isWritable()) {
                ByteBuf full = current;
                current = null;
                sink.add(full);
                current = newChunk(chunkBytes);
            }
        }

        /**
         * The room left in the chunk being filled (a new one if it is full), as a little-endian buffer over the chunk's
         * memory: the caller puts bytes there from its position and then says how many ({@link #filled}). The value's
         * first bytes move from the heap into a chunk if they were still there.
         */
        ByteBuffer room() throws IOException {
            if (current == null) {
                moveBufferToChunk();
            }
            nextChunkIfFull();
            return current.nioBuffer(current.writerIndex(), current.writableBytes())
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }

        /** The caller put {@code n} bytes into the last {@link #room}. */
        void filled(int n) {
            crc.update(current.nioBuffer(current.writerIndex(), n));
            current.writerIndex(current.writerIndex() + n);
            size += n;
        }

        /** What was written and not yet in the sink, taken out of this spill. */
        private ByteBuf tail() {
            ByteBuf tail = current != null ? current : Unpooled.wrappedBuffer(buffer, 0, buffered);
            current = null;
            buffered = 0;
            return tail;
        }

        /** The value as it travels: its bytes if small, else a reference to the value now held here. */
        public byte[] finish() throws IOException {
            finished = true;
            if (size <= limit) {
                return sink.drain(tail(), size);
            }
            sink.add(tail());
            java.util.random.RandomGenerator r = ids != null ? ids : ThreadLocalRandom.current();
            ValueRef ref = new ValueRef(computation, r.nextLong(), r.nextLong(), size, (int) crc.getValue());
            sink.hold(ref);
            return ref.bytes();
        }

        /** Lets go of what was written unless {@link #finish} made it a value. */
        @Override
        public void close() throws IOException {
            if (current != null) {
                current.release();
                current = null;
            }
            if (!finished) {
                sink.discard();
            }
        }
    }

    /**
     * A held value read a chunk at a time: from a file, or from references of its own to the chunks in memory, each
     * handed on with the chunk it gives and the rest released on {@link #close}.
     */
    public final class Chunks implements AutoCloseable {
        private final ValueRef ref;
        private final List<ByteBuf> chunks;
        private final FileChannel channel;
        private int index;
        private long offset;

        private Chunks(ValueRef ref, List<ByteBuf> chunks, FileChannel channel) {
            this.ref = ref;
            this.chunks = chunks;
            this.channel = channel;
        }

        public boolean done() {
            return offset >= ref.size();
        }

        public long offset() {
            return offset;
        }

        public ValueRef ref() {
            return ref;
        }

        /** Bytes of the next chunk; only when not {@link #done}. */
        public int nextLength() {
            return chunks != null ? chunks.get(index).readableBytes()
                    : (int) Math.min(chunkBytes, ref.size() - offset);
        }

        /**
         * The next chunk itself if it is held in memory (never changed once held), else null and nothing read; only
         * when not {@link #done}. The caller takes the reference with it and releases it.
         */
        public ByteBuf nextHeld() {
            if (chunks == null) {
                return null;
            }
            ByteBuf data = chunks.set(index++, null);
            offset += data.readableBytes();
            bytesSent.addAndGet(data.readableBytes());
            return data;
        }

        /**
         * Appends the next chunk's bytes, read from the value's file, to {@code buffer}; only when not {@link #done}
         * and {@link #nextHeld} found the value in no memory.
         */
        public void readFileInto(ByteBuf buffer) throws IOException {
            int n = nextLength();
            int end = buffer.writerIndex() + n;
            while (buffer.writerIndex() < end) {
                long at = offset + n - (end - buffer.writerIndex());
                if (buffer.writeBytes(channel, at, end - buffer.writerIndex()) < 0) {
                    throw new IOException(ref + " ends after " + at + " bytes");
                }
            }
            offset += n;
            bytesSent.addAndGet(n);
        }

        /** The next chunk, which the caller releases or hands on; only when not {@link #done}. */
        public Message.ValueChunk next() throws IOException {
            long at = offset;
            ByteBuf data = nextHeld();
            if (data == null) {
                data = Unpooled.buffer(nextLength());
                try {
                    readFileInto(data);
                } catch (IOException e) {
                    data.release();
                    throw e;
                }
            }
            return new Message.ValueChunk(ref.bytes(), at, data);
        }

        @Override
        public void close() throws IOException {
            if (chunks != null) {
                for (int i = index; i < chunks.size(); i++) {
                    chunks.set(i, null).release();
                }
            }
            if (channel != null) {
                channel.close();
            }
        }
    }

    /** A value's chunks arriving in order; held once the last is in and checked. */
    public final class Arrival implements AutoCloseable {
        private final ValueRef ref;
        private final CRC32C crc = new CRC32C();
        private final Sink sink = new Sink() {
        };
        private long received;
        private boolean whole;

        private Arrival(ValueRef ref) {
            this.ref = ref;
        }

        /**
         * Takes {@code chunk}, and the caller's reference to its data, which it keeps or releases. @return true once
         * the value is whole and held
         *
         * @throws MalformedMessageException for a chunk out of order or bytes that do not match the checksum
         */
        public boolean add(Message.ValueChunk chunk) throws IOException {
            if (chunk.offset() != received) {
                chunk.release();
                throw new MalformedMessageException("chunk of " + ref + " at " + chunk.offset() + " where "
                        + received + " was expected");
            }
            int n = chunk.length();
            crc.update(chunk.data().nioBuffer());
            sink.add(chunk.data());
            received += n;
            bytesReceived.addAndGet(n);
            if (received < ref.size()) {
                return false;
            }
            if ((int) crc.getValue() != ref.crc()) {
                throw new MalformedMessageException(ref + " arrived with a checksum of "
                        + Integer.toHexString((int) crc.getValue()) + ", not " + Integer.toHexString(ref.crc()));
            }
            sink.hold(ref);
            whole = true;
            return true;
        }

        /** Whether what arrived so far is held in memory (not yet written to a file beyond the budget). */
        boolean inMemory() {
            return sink.inMemory();
        }

        /** Lets go of what arrived unless the value is whole. */
        @Override
        public void close() throws IOException {
            if (!whole) {
                sink.discard();
            }
        }
    }
}
