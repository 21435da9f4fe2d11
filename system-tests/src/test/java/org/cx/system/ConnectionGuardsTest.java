package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.LocalCluster;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.server.ConnectionGuards;
import org.cx.server.ServerConfig;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;

/**
 * A peer that opens connections without end, says nothing, or sends half a frame and stops, is cut off; the
 * computation beside it carries on. Real TLS sockets with a valid producer credential: what comes after the
 * handshake.
 */
class ConnectionGuardsTest {
    private static final ConnectionGuards TIGHT = new ConnectionGuards(50, 5, Duration.ofSeconds(1),
            Duration.ofSeconds(1));

    private static SSLSocket connect(LocalCluster cluster) throws IOException {
        SSLSocket s = (SSLSocket) CxHome.local(CredentialRole.PRODUCER, false).socketFactory()
                .createSocket("127.0.0.1", cluster.server().port());
        s.setSoTimeout(20_000);
        return s;
    }

    /** Reads until the server closes the connection; fails (by the socket timeout) if it does not. */
    private static void awaitClosed(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // whatever it says before closing
            }
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the server did not close the connection within 20 s", e);
        } catch (IOException e) {
            // reset: closed
        }
    }

    @Test
    void aConnectionThatSaysNothingOrStopsInsideAFrameIsClosed() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("stall").withGuards(TIGHT),
                1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            var running = consumer.submit(new Fib(15));
            try (SSLSocket silent = connect(cluster)) {
                silent.startHandshake();
                awaitClosed(silent);
            }
            try (Socket half = connect(cluster)) {
                DataOutputStream out = new DataOutputStream(half.getOutputStream());
                out.write(Frames.of(new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.OBSERVER, "half", 0)));
                out.writeInt(1000); // a frame of 1,000 bytes, of which 10 arrive
                out.write(new byte[10]);
                out.flush();
                awaitClosed(half);
            }
            assertEquals(Fib.value(15), running.result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void connectionsBeyondTheLimitPerAddressAreRefusedWithTheReason() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("caps").withGuards(TIGHT),
                1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) { // 2 producers + 1 consumer + 2 = 5, the limit per address
                    SSLSocket s = connect(cluster);
                    s.startHandshake();
                    held.add(s);
                }
                IOException refused = assertThrows(IOException.class, () -> Consumer.connect(
                        cluster.server().address()).close());
                assertTrue(refused.getMessage().contains("the limit per address"), refused.getMessage());
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
            assertEquals(Fib.value(15), consumer.submit(new Fib(15)).result().get(60, TimeUnit.SECONDS));
        }
    }
}
