package org.cx.system;

import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.wire.Message;
import org.cx.wire.MessageDecoder;
import org.cx.wire.Role;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input on real sockets (TLS with a valid producer credential: what comes after the handshake) while a
 * computation runs: each bad connection is refused with a reason and closed;
 * the computation finishes untouched.
 */
class BadInputTest {

    /** Sends {@code bytes}, returns the reason of the Refused the server answers with; asserts it then closes. */
    private static String refusal(int port, byte[]... sends) throws IOException {
        try (Socket s = CxHome.local(CredentialRole.PRODUCER, false).socketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            for (byte[] b : sends) {
                out.write(b);
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            String reason = null;
            while (reason == null) {
                int length = in.readInt();
                byte[] body = new byte[length];
                in.readFully(body);
                if (MessageDecoder.decode(Unpooled.wrappedBuffer(body)) instanceof Message.Refused r) {
                    reason = r.reason();
                }
            }
            assertClosed(in);
            return reason;
        }
    }

    private static void assertClosed(InputStream in) throws IOException {
        try {
            assertEquals(-1, in.read(), "the server closes a refused connection");
        } catch (IOException e) {
            // closed, as expected
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void badConnectionsAreRefusedAndTheComputationCarriesOn() throws Exception {
        try (LocalCluster cluster = Clusters.audited(2, 2, true);
             Consumer consumer = cluster.consumer()) {
            int port = cluster.server().port();
            Computation<Long> running = consumer.submit(new Fib(16, Load.ofMillis(Load.Kind.SLEEP, 0, 1, 0)));
            byte[] hello = Frames.of(new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "rogue", 1));

            String wrongVersion = refusal(port, Frames.of(new Message.Hello(99, Role.PRODUCER, "old", 1)));
            assertTrue(wrongVersion.contains("protocol version 99"), wrongVersion);

            String noHello = refusal(port, Frames.of(new Message.Request(1, 1)));
            assertTrue(noHello.contains("expected Hello"), noHello);

            byte[] unknownId = {0, 0, 0, 2, 120, 1};
            String unknown = refusal(port, concat(hello, unknownId));
            assertTrue(unknown.contains("unregistered class"), unknown);

            byte[] garbage = {0, 0, 0, 5, 22, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
            String malformed = refusal(port, concat(hello, garbage));
            assertTrue(malformed.startsWith("bad input"), malformed);

            byte[] oversized = {0x7f, 0, 0, 0, 1, 2, 3};
            String tooLong = refusal(port, concat(hello, oversized));
            assertTrue(tooLong.contains("exceeds"), tooLong);

            String wrongRole = refusal(port, concat(hello, Frames.of(new Message.Collect(1))));
            assertTrue(wrongRole.contains("not a message a producer may send"), wrongRole);

            assertEquals(Fib.value(16), running.result().get(120, TimeUnit.SECONDS));
            assertEquals(1, cluster.server().audit().maxApplied());
            assertEquals(6, cluster.server().connectionsRefused());
            // The last refused connection may still be closing on the server's side: its producer leaves then.
            org.cx.testing.Await.until("only the real producers to remain", Clusters.TIMEOUT,
                    () -> cluster.server().status().producers() == 2);
        }
    }
}
