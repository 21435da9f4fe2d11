package org.cx.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Kryo's stream input and output, except that a run of bytes at least as long as the buffer passes straight between
 * the stream and the caller's array: a large value's bytes are copied once on their way into or out of the value
 * store, not twice (through the buffer). Primitive arrays reach here as such runs ({@link BulkArraySerializers}), or,
 * in and out of the value store's memory, go between their array and the store's chunks directly.
 */
final class PassThrough {

    private PassThrough() {
    }

    /** Output to a stream. */
    static final class Out extends Output {
        Out(OutputStream stream, int bufferBytes) {
            super(stream, bufferBytes);
        }

        /** An output whose stream is set later ({@link #setOutputStream}). */
        Out(int bufferBytes) {
            super(bufferBytes, bufferBytes);
        }

        /**
         * The value being encoded, if this output writes one into the value store and {@code bytes} more make it a
         * value held by reference (what was buffered is flushed into it first); else null.
         */
        ValueStore.Spill spillFor(long bytes) {
            if (!(outputStream instanceof ToStore store) || total() + bytes <= store.inlineBytes) {
                return null;
            }
            flush();
            return store.spill();
        }

        /** {@code count} bytes went straight into the value's spill ({@link #spillFor}). */
        void passed(long count) {
            total += count;
        }

        @Override
        public void writeBytes(byte[] bytes, int offset, int count) {
            if (count < capacity) {
                super.writeBytes(bytes, offset, count);
                return;
            }
            flush();
            try {
                outputStream.write(bytes, offset, count);
            } catch (IOException e) {
                throw new KryoException(e);
            }
            total += count;
        }
    }

    /**
     * The value store as a stream, for a value being encoded: the value's {@link ValueStore.Spill} is made with the
     * first byte that reaches it, so a value that never outgrows its output's buffer never makes one.
     */
    static final class ToStore extends OutputStream {
        private final ValueStore store;
        private final long computation;
        private final long inlineBytes;
        private ValueStore.Spill spill;

        ToStore(ValueStore store, long computation) {
            this.store = store;
            this.computation = computation;
            this.inlineBytes = store.inlineBytes();
        }

        /** Whether any byte reached the store. */
        boolean started() {
            return spill != null;
        }

        ValueStore.Spill spill() {
            if (spill == null) {
                spill = store.spill(computation);
            }
            return spill;
        }

        @Override
        public void write(int b) throws IOException {
            spill().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            spill().write(b, off, len);
        }

        /** Lets go of what was written unless it became a value. */
        @Override
        public void close() throws IOException {
            if (spill != null) {
                spill.close();
            }
        }
    }

    /** Input from a stream. */
    static final class In extends Input {
        In(InputStream stream, int bufferBytes) {
            super(stream, bufferBytes);
        }

        /**
         * The next {@code count} bytes as little-endian buffers in order, to be read from their positions: what this
         * input has buffered, then the value's memory in place. Null if the stream is not a value held in memory.
         */
        ByteBuffer[] runs(int count) {
            if (!(inputStream instanceof ValueStore.InMemory value)) {
                return null;
            }
            int buffered = Math.min(limit - position, count);
            ByteBuf rest = value.bytes();
            if (count - buffered > rest.readableBytes()) {
                throw new KryoException("Buffer underflow: the value ends " + (count - buffered - rest.readableBytes())
                        + " bytes early");
            }
            ByteBuffer[] inPlace = rest.nioBuffers(rest.readerIndex(), count - buffered);
            rest.skipBytes(count - buffered);
            ByteBuffer[] runs = new ByteBuffer[inPlace.length + 1];
            runs[0] = ByteBuffer.wrap(buffer, position, buffered);
            position += buffered;
            total += count - buffered;
            System.arraycopy(inPlace, 0, runs, 1, inPlace.length);
            for (ByteBuffer run : runs) {
                run.order(ByteOrder.LITTLE_ENDIAN);
            }
            return runs;
        }

        @Override
        public void readBytes(byte[] bytes, int offset, int count) {
            if (count < capacity) {
                super.readBytes(bytes, offset, count);
                return;
            }
            int buffered = Math.min(limit - position, count);
            System.arraycopy(buffer, position, bytes, offset, buffered);
            position += buffered;
            int wanted = count - buffered;
            try {
                int read = inputStream.readNBytes(bytes, offset + buffered, wanted);
                total += read;
                if (read < wanted) {
                    throw new KryoException("Buffer underflow: the stream ended " + (wanted - read) + " bytes early");
                }
            } catch (IOException e) {
                throw new KryoException(e);
            }
        }
    }
}
