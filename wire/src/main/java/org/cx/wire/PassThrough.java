package org.cx.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Kryo's stream input and output, except that a run of bytes at least as long as the buffer passes straight between
 * the stream and the caller's array: a large value's bytes are copied once on their way into or out of the value
 * store, not twice (through the buffer). Primitive arrays reach here as such runs ({@link BulkArraySerializers}).
 */
final class PassThrough {

    private PassThrough() {
    }

    /** Output to a stream. */
    static final class Out extends Output {
        Out(OutputStream stream, int bufferBytes) {
            super(stream, bufferBytes);
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

    /** Input from a stream. */
    static final class In extends Input {
        In(InputStream stream, int bufferBytes) {
            super(stream, bufferBytes);
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
