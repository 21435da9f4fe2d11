package org.cx.wire;

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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The large values one process holds, each in a file of its own directory: values a task made here, and values that
 * arrived in chunks ahead of a message referring to them ({@link ValueLink}). A value over
 * {@linkplain #inlineLimit() the inline limit} never sits whole in a buffer on its way: it is encoded into its file,
 * sent from it a chunk at a time, written to the receiver's file as it arrives, and decoded from there. A
 * computation's values go when it ends; the directory goes when the process closes the store. Thread-safe.
 */
public final class ValueStore implements AutoCloseable {
    /** Bytes per chunk on the wire: one frame each. */
    public static final int CHUNK_BYTES = 1 << 20;
    /** The default of {@link #inlineLimit()}. */
    public static final long DEFAULT_INLINE_BYTES = 1 << 20;

    private final Path dir;
    private final Map<ValueRef, Path> held = new ConcurrentHashMap<>();
    private final AtomicLong heldBytes = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();

    public ValueStore(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the value store " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A store in a new directory under {@code java.io.tmpdir}, named after its owner, deleted on {@link #close}. */
    public static ValueStore temporary(String owner) {
        try {
            return new ValueStore(Files.createTempDirectory("cx-values-" + owner.replaceAll("[^A-Za-z0-9._-]", "_")
                    + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a value store under " + System.getProperty("java.io.tmpdir")
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Encoded values larger than this travel by reference: {@code -Dcx.valueInlineBytes}, by default
     * {@value #DEFAULT_INLINE_BYTES}. Every process of a network should use the same.
     */
    public static long inlineLimit() {
        return Long.getLong("cx.valueInlineBytes", DEFAULT_INLINE_BYTES);
    }

    public Path directory() {
        return dir;
    }

    /** A stream to encode a value of {@code computation} into; {@link Spill#finish} says how it travels. */
    public Spill spill(long computation) {
        return new Spill(computation);
    }

    /** Holds {@code bytes} already encoded in memory: as they are if small, else in a file, by reference. */
    public byte[] keep(long computation, byte[] bytes) {
        if (bytes.length <= inlineLimit()) {
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
        Path file = held.get(ref);
        if (file == null) {
            throw new IllegalStateException(ref + " is not held by this process: it did not arrive ahead of the "
                    + "message referring to it, or its computation has ended here");
        }
        try {
            return new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ref + " from " + file + ": " + e.getMessage(), e);
        }
    }

    /** The value's bytes in chunks, to send. */
    public Chunks chunks(ValueRef ref) throws IOException {
        Path file = held.get(ref);
        if (file == null) {
            throw new IOException(ref + " is not held by this process, so it cannot be sent");
        }
        return new Chunks(ref, FileChannel.open(file, StandardOpenOption.READ));
    }

    /** An arrival of {@code ref}'s chunks, in order, on one connection. */
    public Arrival arrival(ValueRef ref) throws IOException {
        return new Arrival(ref);
    }

    /** Lets the values of {@code computation} go. */
    public void drop(long computation) {
        held.entrySet().removeIf(e -> {
            if (e.getKey().computation() != computation) {
                return false;
            }
            delete(e.getKey(), e.getValue());
            return true;
        });
    }

    /**
     * Lets go the values of computations {@code known} rejects that have been held at least {@code minAgeNanos}:
     * younger ones may be the values of a computation about to arrive.
     */
    public void sweep(long minAgeNanos, java.util.function.LongPredicate known) {
        long cutoff = System.currentTimeMillis() - minAgeNanos / 1_000_000;
        held.entrySet().removeIf(e -> {
            if (known.test(e.getKey().computation()) || e.getValue().toFile().lastModified() > cutoff) {
                return false;
            }
            delete(e.getKey(), e.getValue());
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

    /** Bytes of values that arrived from other processes since the store opened. */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    /** Bytes of values sent to other processes since the store opened. */
    public long bytesSent() {
        return bytesSent.get();
    }

    @Override
    public void close() {
        held.forEach(this::delete);
        held.clear();
        try (var left = Files.list(dir)) {
            left.forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // already gone
        }
        dir.toFile().delete();
    }

    private void delete(ValueRef ref, Path file) {
        heldBytes.addAndGet(-ref.size());
        file.toFile().delete();
    }

    private Path temporaryFile() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return dir.resolve(".part-" + Long.toUnsignedString(r.nextLong(), 16));
    }

    /** Makes {@code file}, whose bytes are {@code ref}'s, held here (or deletes it if the value is held already). */
    private void adopt(ValueRef ref, Path file) throws IOException {
        if (held.containsKey(ref)) {
            Files.deleteIfExists(file);
            return;
        }
        Path target = dir.resolve(ref.fileName());
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (held.putIfAbsent(ref, target) == null) {
            heldBytes.addAndGet(ref.size());
        }
    }

    /**
     * A value being encoded: kept in memory up to the inline limit, then written to a file of the store.
     */
    public final class Spill extends OutputStream {
        private final long computation;
        private final long limit = inlineLimit();
        private final CRC32C crc = new CRC32C();
        private byte[] memory = new byte[4096];
        private int inMemory;
        private Path file;
        private OutputStream out;
        private long size;

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
            if (out == null && size <= limit) {
                if (inMemory + len > memory.length) {
                    memory = java.util.Arrays.copyOf(memory, (int) Math.min(limit, Math.max(2L * memory.length,
                            inMemory + len)));
                }
                System.arraycopy(b, off, memory, inMemory, len);
                inMemory += len;
                return;
            }
            if (out == null) {
                file = temporaryFile();
                out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                out.write(memory, 0, inMemory);
                memory = null;
            }
            out.write(b, off, len);
        }

        /** The value as it travels: its bytes if small, else a reference to the file now held here. */
        public byte[] finish() throws IOException {
            if (out == null) {
                return java.util.Arrays.copyOf(memory, inMemory);
            }
            out.close();
            out = null;
            ThreadLocalRandom r = ThreadLocalRandom.current();
            ValueRef ref = new ValueRef(computation, r.nextLong(), r.nextLong(), size, (int) crc.getValue());
            adopt(ref, file);
            file = null;
            return ref.bytes();
        }

        /** Deletes what was written unless {@link #finish} made it a value. */
        @Override
        public void close() throws IOException {
            if (out != null) {
                out.close();
                out = null;
            }
            if (file != null) {
                Files.deleteIfExists(file);
                file = null;
            }
        }
    }

    /** A held value read a chunk at a time. */
    public final class Chunks implements AutoCloseable {
        private final ValueRef ref;
        private final FileChannel channel;
        private long offset;

        private Chunks(ValueRef ref, FileChannel channel) {
            this.ref = ref;
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
            return (int) Math.min(CHUNK_BYTES, ref.size() - offset);
        }

        /** Appends the next chunk's bytes to {@code buffer}, straight from the file; only when not {@link #done}. */
        public void readInto(io.netty.buffer.ByteBuf buffer) throws IOException {
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

        /** The next chunk; only when not {@link #done}. */
        public Message.ValueChunk next() throws IOException {
            int n = (int) Math.min(CHUNK_BYTES, ref.size() - offset);
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) {
                    throw new IOException(ref + " ends after " + (offset + b.position()) + " bytes");
                }
            }
            Message.ValueChunk chunk = new Message.ValueChunk(ref.bytes(), offset, b.array());
            offset += n;
            bytesSent.addAndGet(n);
            return chunk;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A value's chunks arriving in order, written to a file as they come; held once the last is in and checked. */
    public final class Arrival implements AutoCloseable {
        private final ValueRef ref;
        private final CRC32C crc = new CRC32C();
        private Path file;
        private FileChannel out;
        private long received;

        private Arrival(ValueRef ref) throws IOException {
            this.ref = ref;
            this.file = temporaryFile();
            this.out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        /**
         * Writes {@code chunk}. @return true once the value is whole and held
         *
         * @throws MalformedMessageException for a chunk out of order or bytes that do not match the checksum
         */
        public boolean add(Message.ValueChunk chunk) throws IOException {
            if (chunk.offset() != received) {
                throw new MalformedMessageException("chunk of " + ref + " at " + chunk.offset() + " where "
                        + received + " was expected");
            }
            crc.update(chunk.data());
            ByteBuffer b = ByteBuffer.wrap(chunk.data());
            while (b.hasRemaining()) {
                out.write(b);
            }
            received += chunk.data().length;
            bytesReceived.addAndGet(chunk.data().length);
            if (received < ref.size()) {
                return false;
            }
            out.close();
            out = null;
            if ((int) crc.getValue() != ref.crc()) {
                throw new MalformedMessageException(ref + " arrived with a checksum of "
                        + Integer.toHexString((int) crc.getValue()) + ", not " + Integer.toHexString(ref.crc()));
            }
            adopt(ref, file);
            file = null;
            return true;
        }

        /** Deletes what arrived unless the value is whole. */
        @Override
        public void close() throws IOException {
            if (out != null) {
                out.close();
                out = null;
            }
            if (file != null) {
                Files.deleteIfExists(file);
                file = null;
            }
        }
    }
}
