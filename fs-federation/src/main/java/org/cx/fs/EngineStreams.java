package org.cx.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS over a blocking socket channel through an {@link SSLEngine}: the client side of a file service connection. The
 * engine is the network's ({@link org.cx.security.Tls#clientEngine}, BoringSSL where it loads), which decrypts bulk
 * data at a fraction of the JDK's blocking TLS sockets' cost. Records go between the channel and direct buffers,
 * which spares two copies of every byte each way (the socket's, between the kernel and a native buffer, and the
 * engine's, between a native buffer and the heap), and reads keep the socket's read timeout. One thread may read while
 * another writes (a producer's relay does): each direction has its own buffers and lock, and the engine is safe for
 * that.
 */
final class EngineStreams {
    /** Records gathered into one socket write, and read from the socket at once. */
    private static final int RECORDS_PER_IO = 16;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** Ends channel reads that outlast their socket's timeout (see {@link #readChannel}). */
    private static final ScheduledThreadPoolExecutor TIMEOUTS = timeouts();

    private final SSLEngine engine;
    private final SocketChannel channel;
    private final Object reading = new Object();
    private final Object writing = new Object();
    /**
     * Bytes from the socket not unwrapped yet, in read mode between calls: the engine unwraps one record per call,
     * and moving the rest to the front after each (as a write-mode buffer would) cost more than the decryption.
     */
    private ByteBuffer netIn;
    /** Bytes unwrapped and not read yet (write mode). */
    private ByteBuffer appIn;
    private ByteBuffer netOut;

    private EngineStreams(SocketChannel channel, SSLEngine engine) {
        this.engine = engine;
        this.channel = channel;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocateDirect(packet * RECORDS_PER_IO).flip();
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        this.netOut = ByteBuffer.allocateDirect(packet * RECORDS_PER_IO);
    }

    /**
     * Shakes hands over the connected, blocking {@code channel}; throws if the peer is not one {@code engine} trusts.
     * Reads wait at most the channel's socket's read timeout ({@link Socket#setSoTimeout}) at the time.
     */
    static EngineStreams handshake(SocketChannel channel, SSLEngine engine) throws IOException {
        EngineStreams s = new EngineStreams(channel, engine);
        engine.beginHandshake();
        SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
        while (status != SSLEngineResult.HandshakeStatus.FINISHED
                && status != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            switch (status) {
                case NEED_WRAP -> status = s.wrap(EMPTY).getHandshakeStatus();
                case NEED_TASK -> status = s.runTasks();
                default -> {
                    synchronized (s.reading) {
                        SSLEngineResult r = s.unwrap(s.appIn);
                        if (r == null) {
                            throw new EOFException("the peer closed the connection during the TLS handshake");
                        }
                        status = r.getHandshakeStatus();
                    }
                }
            }
        }
        return s;
    }

    private SSLEngineResult.HandshakeStatus runTasks() {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
        return engine.getHandshakeStatus();
    }

    /**
     * Unwraps what is buffered into {@code into}, reading from the socket when a whole record is not there; null at
     * the end of the stream. Holds {@link #reading}.
     */
    private SSLEngineResult unwrap(ByteBuffer into) throws IOException {
        while (true) {
            SSLEngineResult r = engine.unwrap(netIn, into);
            switch (r.getStatus()) {
                case OK -> {
                    if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                        runTasks();
                    } else if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP
                            && !handshaking()) {
                        wrap(EMPTY); // a key update after the handshake
                    }
                    return r;
                }
                case BUFFER_UNDERFLOW -> {
                    netIn.compact(); // the part of a record left goes to the front; the rest of the buffer is free
                    if (!netIn.hasRemaining()) {
                        netIn = grow(netIn, engine.getSession().getPacketBufferSize(), true);
                    }
                    int n = readChannel();
                    netIn.flip();
                    if (n < 0) {
                        return null;
                    }
                }
                case BUFFER_OVERFLOW -> {
                    if (into != appIn) {
                        return r; // the caller's buffer is too small for a record: it reads through appIn
                    }
                    appIn = grow(appIn, engine.getSession().getApplicationBufferSize(), false);
                    into = appIn;
                }
                case CLOSED -> {
                    return null;
                }
            }
        }
    }

    /**
     * Reads from the channel into {@link #netIn}, within the socket's read timeout: a blocking channel does not keep
     * it, so a timer closes the channel when the read outlasts it, and the read then fails as a timed-out socket's.
     */
    private int readChannel() throws IOException {
        int millis = channel.socket().getSoTimeout();
        if (millis <= 0) {
            return channel.read(netIn);
        }
        AtomicBoolean pending = new AtomicBoolean(true);
        ScheduledFuture<?> timer = TIMEOUTS.schedule(() -> {
            if (pending.compareAndSet(true, false)) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // the reader fails either way
                }
            }
        }, millis, TimeUnit.MILLISECONDS);
        try {
            int n = channel.read(netIn);
            if (pending.compareAndSet(true, false)) {
                timer.cancel(false);
                return n;
            }
        } catch (ClosedChannelException e) {
            if (pending.compareAndSet(true, false)) {
                timer.cancel(false);
                throw e;
            }
        }
        throw new SocketTimeoutException("no data in " + millis + " ms; the connection is closed");
    }

    private boolean handshaking() {
        SSLEngineResult.HandshakeStatus s = engine.getHandshakeStatus();
        return s != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && s != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** Wraps all of {@code src} into records and writes them, several to a socket write. */
    private SSLEngineResult wrap(ByteBuffer src) throws IOException {
        synchronized (writing) {
            SSLEngineResult last;
            int packet = engine.getSession().getPacketBufferSize();
            do {
                netOut.clear();
                while (true) {
                    last = engine.wrap(src, netOut);
                    if (last.getStatus() == SSLEngineResult.Status.CLOSED) {
                        throw new SSLException("the TLS connection is closed");
                    }
                    if (last.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                        if (netOut.position() > 0) {
                            break; // full: send what is there first
                        }
                        netOut = ByteBuffer.allocateDirect(netOut.capacity() * 2);
                        continue;
                    }
                    if (!src.hasRemaining() || netOut.remaining() < packet) {
                        break;
                    }
                }
                netOut.flip();
                while (netOut.hasRemaining()) {
                    channel.write(netOut);
                }
            } while (src.hasRemaining());
            return last;
        }
    }

    private static ScheduledThreadPoolExecutor timeouts() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("cx-fs-read-timeouts").factory());
        timer.setRemoveOnCancelPolicy(true); // a read cancels its timer; the queue holds only those still running
        return timer;
    }

    private static ByteBuffer grow(ByteBuffer b, int atLeast, boolean direct) {
        int capacity = Math.max(b.capacity() * 2, b.position() + atLeast);
        ByteBuffer bigger = direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
        b.flip();
        bigger.put(b);
        return bigger;
    }

    InputStream in() {
        return new ChannelStreams.BulkInput() {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                synchronized (reading) {
                    while (appIn.position() == 0) {
                        // Large reads take the records straight into the caller's array: one copy fewer. Otherwise
                        // they go into appIn, which unwrap may replace by a larger one (the engine's record size is
                        // known only after the handshake): what it produced is then in the new one.
                        boolean direct = len >= appIn.capacity();
                        SSLEngineResult r = unwrap(direct ? ByteBuffer.wrap(b, off, len) : appIn);
                        if (r == null) {
                            return -1;
                        }
                        if (direct && r.bytesProduced() > 0) {
                            return r.bytesProduced();
                        }
                        if (direct && r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                            len = Math.min(len, appIn.capacity() - 1); // read through appIn from now on
                        }
                    }
                    appIn.flip();
                    int n = Math.min(len, appIn.remaining());
                    appIn.get(b, off, n);
                    appIn.compact();
                    return n;
                }
            }

            @Override
            public int available() {
                synchronized (reading) {
                    return appIn.position();
                }
            }
        };
    }

    OutputStream out() {
        return new ChannelStreams.BulkOutput() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                wrap(ByteBuffer.wrap(b, off, len));
            }
        };
    }
}
