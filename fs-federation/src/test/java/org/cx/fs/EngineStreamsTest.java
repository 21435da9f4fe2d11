package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLSocket;
import org.cx.security.CredentialRole;
import org.cx.security.ThrowAwayCredentials;
import org.cx.security.Tls;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client side of a TLS file service connection, against the JDK's own TLS server socket: bytes go through whole
 * in both directions at once, read in small and large pieces alike, and a silent peer makes a read fail after the
 * socket's read timeout, as a plain socket's would.
 */
class EngineStreamsTest {
    /** The peer and the client's writer each on a thread of its own (the common pool may have a single one). */
    private static final Executor THREADS = Executors.newCachedThreadPool(Thread.ofPlatform().daemon().factory());
    private ServerSocket listening;
    private Tls user;

    @BeforeEach
    void listen() throws Exception {
        ThrowAwayCredentials keys = ThrowAwayCredentials.make();
        user = keys.tls(CredentialRole.USER, "ann");
        listening = keys.tls(CredentialRole.SERVER, "fs").serverSocketFactory().createServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws Exception {
        listening.close();
    }

    @Test
    void bytesGoThroughWholeBothWaysAtOnce() throws Exception {
        Random random = new Random(Seeds.seed("EngineStreamsTest"));
        byte[] sent = new byte[5 * (1 << 20) + random.nextInt(1 << 16)];
        random.nextBytes(sent);
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            try (Socket s = listening.accept()) {
                byte[] chunk = new byte[50_000];
                for (int left = sent.length, n; left > 0; left -= n) {
                    n = s.getInputStream().read(chunk, 0, Math.min(chunk.length, left));
                    s.getOutputStream().write(chunk, 0, n);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, THREADS);
        try (SocketChannel channel = connect(10_000)) {
            EngineStreams tls = EngineStreams.handshake(channel, user.clientEngine());
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = tls.out();
                    for (int at = 0; at < sent.length; at += 70_000) {
                        out.write(sent, at, Math.min(70_000, sent.length - at));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, THREADS);
            byte[] received = new byte[sent.length];
            // As a connection reads frames: a header of a few bytes, then a block, through a buffer of its own.
            DataInputStream frames = new DataInputStream(new BufferedInputStream(tls.in(), 16 << 10));
            for (int at = 0, i = 0; at < sent.length; i++) {
                int n = Math.min(i % 2 == 0 ? 5 : (1 << 20) + random.nextInt(100), sent.length - at);
                frames.readFully(received, at, n);
                at += n;
            }
            writer.join();
            assertArrayEquals(sent, received, "the echo of every byte sent");
        }
        echo.join();
    }

    @Test
    void aSilentPeerTimesTheReadOutAndTheConnectionCloses() throws Exception {
        CompletableFuture<Void> silent = CompletableFuture.runAsync(() -> {
            try (SSLSocket s = (SSLSocket) listening.accept()) {
                s.startHandshake();
                s.getInputStream().read(); // says nothing until the client goes
            } catch (Exception e) {
                // the client closed: that is the end of this peer
            }
        }, THREADS);
        try (SocketChannel channel = connect(300)) {
            EngineStreams tls = EngineStreams.handshake(channel, user.clientEngine());
            InputStream in = tls.in();
            long start = System.nanoTime();
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class, () -> in.read(new byte[10]));
            assertTrue(System.nanoTime() - start >= 300_000_000L, "not before the timeout: " + e.getMessage());
            assertFalse(channel.isOpen(), "a timed-out connection is not used again");
        }
        silent.join();
    }

    private SocketChannel connect(int readTimeoutMillis) throws Exception {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress(listening.getInetAddress(),
                listening.getLocalPort()));
        channel.socket().setSoTimeout(readTimeoutMillis);
        return channel;
    }
}
