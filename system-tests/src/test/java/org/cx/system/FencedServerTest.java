package org.cx.system;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server declared failed may run again: a frozen process wakes up with the state it had, and its tasks now live
 * on its heir. Whatever it sends must change nothing, or a task it transfers would run on two servers. Here a
 * connection speaks as the failed server, as it would on waking, and offers a live server a task.
 */
class FencedServerTest {
    @TempDir
    Path dir;

    @Test
    void aServerDeclaredFailedIsToldSoAndItsTransferIsRefused() throws Exception {
        try (ServerProcesses network = ServerProcesses.start(3, dir)) {
            int failed = network.idOf(2);
            int root = network.idOf(0);
            network.kill(2);
            network.awaitTolerant(2);

            TaskEnvelope task = new TaskEnvelope(TaskId.root(42).child(0), Continuation.CONSUMER, 0, 0, false,
                    new byte[] {1});
            RoutedPayload.Transfer transfer = new RoutedPayload.Transfer(42, failed, "", "", 0,
                    new ReadyTask[] {new ReadyTask(task, new byte[0][])}, new int[] {failed}, RoutedPayload.Tally.NONE);
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            EventLoopGroup group = EventLoops.create("woken", 1);
            try {
                // It still holds its server credential, so it gets past TLS; what it says must change nothing.
                Channel woken = WireClient.connect(group, WireClient.parseAddress(network.address(0)),
                        CxHome.local(CredentialRole.SERVER, false),
                        new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.SERVER, "s2", failed),
                        welcome -> new SimpleChannelInboundHandler<Message>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                                received.add(msg);
                            }
                        }, 10_000);
                woken.writeAndFlush(new Message.Routed(failed, root, 1, transfer));
                String evicted = null;
                while (evicted == null) {
                    Message m = received.poll(10, TimeUnit.SECONDS);
                    assertNotNull(m, "no Evicted within 10 s");
                    if (m instanceof Message.Evicted e) {
                        evicted = e.reason();
                    }
                }
                assertTrue(evicted.contains("declared failed"), evicted);
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            int stored = 0;
            for (Message.ServerStatus server : network.status().servers()) {
                stored += server.tasks();
            }
            assertEquals(0, stored, "the failed server's transfer was stored");
        }
    }
}
