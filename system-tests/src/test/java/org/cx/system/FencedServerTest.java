package org.cx.system;

import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Message;
import org.cx.wire.MessageDecoder;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server declared failed may run again: a frozen process wakes up with the state it had, and its tasks now live
 * on its heir. Whatever it sends must change nothing, or a task it transfers would run on two servers. Here a
 * socket speaks as the failed server, as it would on waking, and offers a live server a task.
 */
class FencedServerTest {
    @TempDir
    Path dir;

    private static void send(OutputStream out, Message m) throws Exception {
        out.write(Frames.of(m));
        out.flush();
    }

    @Test
    void aServerDeclaredFailedIsToldSoAndItsTransferIsRefused() throws Exception {
        try (ServerProcesses network = ServerProcesses.start(3, dir)) {
            int failed = network.idOf(2);
            int root = network.idOf(0);
            network.kill(2);
            network.awaitTolerant(2);

            TaskEnvelope task = new TaskEnvelope(TaskId.root(42).child(0), Continuation.CONSUMER, 0, 0, false,
                    new byte[] {1});
            RoutedPayload.Transfer transfer = new RoutedPayload.Transfer(42, failed, "",
                    new ReadyTask[] {new ReadyTask(task, new byte[0][])}, new int[] {failed}, RoutedPayload.Tally.NONE);
            int port = WireClient.parseAddress(network.address(0)).getPort();
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                send(s.getOutputStream(), new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.SERVER, "s2", failed));
                send(s.getOutputStream(), new Message.Routed(failed, root, 1, transfer));
                DataInputStream in = new DataInputStream(s.getInputStream());
                String evicted = null;
                while (evicted == null) {
                    byte[] body = new byte[in.readInt()];
                    in.readFully(body);
                    if (MessageDecoder.decode(Unpooled.wrappedBuffer(body)) instanceof Message.Evicted e) {
                        evicted = e.reason();
                    }
                }
                assertTrue(evicted.contains("declared failed"), evicted);
            }
            int stored = 0;
            for (Message.ServerStatus server : network.status().servers()) {
                stored += server.tasks();
            }
            assertEquals(0, stored, "the failed server's transfer was stored");
        }
    }
}
