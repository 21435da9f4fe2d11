package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WireClientTest {

    /**
     * A client closed while it fails over (its servers gone) stops trying at once, instead of retrying on event
     * loops that no longer run until the fail-over deadline.
     */
    @Test
    void failingOverStopsWhenTheClientShutsDown() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // closed again: connections to it are refused
        }
        EventLoopGroup group = EventLoops.create("wire-client-test", 1);
        Message.Hello hello = new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "p", 1);
        CompletableFuture<Void> failOver = CompletableFuture.runAsync(() -> {
            try {
                WireClient.connectAny(group, List.of("127.0.0.1:" + deadPort), null, hello,
                        welcome -> new ChannelInboundHandlerAdapter(), 600_000, null);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        // Without the check the loop would go on for the whole 600 s deadline: get() would time out.
        ExecutionException ended = assertThrows(ExecutionException.class,
                () -> failOver.get(60, TimeUnit.SECONDS));
        IOException cause = assertInstanceOf(IOException.class, ended.getCause().getCause());
        assertTrue(cause.getMessage().contains("shutting down"), cause.getMessage());
    }
}
