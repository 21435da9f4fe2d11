package org.cx.consumer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;

/** Asks a production network what it looks like ({@code cx network status}, tests, benchmarks). */
public final class NetworkProbe {

    private NetworkProbe() {
    }

    /**
     * The primary root's view, asked of any server (a non-root server points to the root; that is followed), with
     * this user's local credential.
     */
    public static Message.NetworkStatus status(String hostPort) throws IOException {
        return status(hostPort, CxHome.local(CredentialRole.USER, false));
    }

    /** As {@link #status(String)}, with {@code tls} (null: a plain connection). */
    public static Message.NetworkStatus status(String hostPort, Tls tls) throws IOException {
        EventLoopGroup group = EventLoops.create("cx-probe", 1);
        try {
            return status(group, hostPort, tls);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** As {@link #status(String, Tls)}, on {@code group} (the caller's, for one who asks again and again). */
    public static Message.NetworkStatus status(EventLoopGroup group, String hostPort, Tls tls) throws IOException {
        String target = hostPort;
        for (int hop = 0; hop < 3; hop++) {
            Message answer = ask(group, target, tls);
            if (answer instanceof Message.NetworkStatus s) {
                return s;
            }
            target = ((Message.Redirect) answer).address();
        }
        throw new IOException("no primary root found from " + hostPort + " (redirected three times)");
    }

    private static Message ask(EventLoopGroup group, String target, Tls tls) throws IOException {
        CompletableFuture<Message> answer = new CompletableFuture<>();
        Channel ch = WireClient.connect(group, WireClient.parseAddress(target), tls,
                new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.OBSERVER, "cx-network-status", 0),
                welcome -> new SimpleChannelInboundHandler<Message>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                        if (msg instanceof Message.NetworkStatus || msg instanceof Message.Redirect) {
                            answer.complete(msg);
                        }
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        answer.completeExceptionally(new IOException("the server closed the connection"));
                    }
                }, 5_000);
        try {
            ch.writeAndFlush(new Message.NetworkQuery());
            return answer.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException(target + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(target + " did not describe the network within 5 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            ch.close();
        }
    }

    /** Whether a network of {@code servers} survives another failure, as people read it. */
    public static String tolerance(int servers, boolean tolerant) {
        return servers == 1 ? "tolerates no failure (a single server has no mirror: add one with cx server --join)"
                : tolerant ? "tolerates another failure" : "NOT yet tolerant of another failure (re-mirroring)";
    }

    /** A table of the network, one server per line, by tree position. */
    public static String describe(Message.NetworkStatus s) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("production network: %d server(s), epoch %d, branching %d, %s%n", s.servers().length,
                s.epoch(), s.branching(), tolerance(s.servers().length, s.tolerant())));
        b.append(String.format("%-4s %-4s %-16s %-22s %-12s %-12s %7s %7s %7s %9s %10s%n", "pos", "id", "name",
                "address", "mirrored-by", "holds-copy", "tasks", "ready", "fresh", "producers", "completed"));
        for (Message.ServerStatus r : s.servers()) {
            String role = r.position() == 0 ? " (primary root)" : r.position() == 1 ? " (secondary root)" : "";
            b.append(String.format("%-4d %-4d %-16s %-22s %-12s %-12s %7s %7s %7s %9s %10s%s%n", r.position(),
                    r.id(), r.name(), r.address(), Arrays.toString(r.mirrorGroup()).replace(" ", ""),
                    Arrays.toString(r.copiesHeld()).replace(" ", ""), n(r.tasks()),
                    n(r.ready()), n(r.fresh()), n(r.producers()), n(r.completed()), role));
        }
        return b.toString();
    }

    private static String n(long v) {
        return v < 0 ? "?" : Long.toString(v);
    }
}
