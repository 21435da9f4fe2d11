package org.cx.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Streams over a blocking socket channel that one thread may read while another writes (the channel's own read and
 * write locks are separate; the JDK's channel streams of older releases share one lock between both directions).
 */
final class ChannelStreams {
    private ChannelStreams() {
    }

    /** A stream that reads in bulk; a single byte is a bulk read of one. */
    abstract static class BulkInput extends InputStream {
        @Override
        public final int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }
    }

    /** A stream that writes in bulk; a single byte is a bulk write of one. */
    abstract static class BulkOutput extends OutputStream {
        @Override
        public final void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }
    }

    static InputStream in(SocketChannel channel) {
        return new BulkInput() {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    static OutputStream out(SocketChannel channel) {
        return new BulkOutput() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }
}
