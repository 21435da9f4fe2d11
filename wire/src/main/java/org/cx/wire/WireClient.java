package org.cx.wire;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.cx.security.Tls;

/** Connects to a CX server and performs the handshake; the caller's handler takes over after the Welcome. */
public final class WireClient {
    /** The server address a connection was opened to ({@link #serverAddress}). */
    private static final AttributeKey<InetSocketAddress> SERVER = AttributeKey.valueOf("cx.server");

    private WireClient() {
    }

    /**
     * Opens a connection, sends {@code hello} and waits for the server's answer.
     *
     * @param tls            this process's credential (the server must hold a server one), or null for a plain
     *                       connection
     * @param handlerFactory builds the handler that receives every message after the Welcome
     * @return the connected channel, its pipeline ending in the caller's handler
     * @throws IOException naming the address and the reason when the connection or the handshake fails
     */
    public static Channel connect(EventLoopGroup group, InetSocketAddress address, Tls tls, Message.Hello hello,
                                  Function<Message.Welcome, ChannelHandler> handlerFactory, long timeoutMillis)
            throws IOException {
        return connect(group, address, tls, hello, handlerFactory, timeoutMillis, null);
    }

    /**
     * As {@link #connect(EventLoopGroup, InetSocketAddress, Tls, Message.Hello, Function, long)}, with large values
     * kept in and sent from {@code values} (null: every value inline).
     */
    public static Channel connect(EventLoopGroup group, InetSocketAddress address, Tls tls, Message.Hello hello,
                                  Function<Message.Welcome, ChannelHandler> handlerFactory, long timeoutMillis,
                                  ValueStore values) throws IOException {
        CompletableFuture<Channel> ready = new CompletableFuture<>();
        ChannelInitializer<Channel> pipeline = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                WirePipeline.install(ch, WireConfig.maxFrameBytes(), tls, false, null, values);
                ch.pipeline().addLast("handshake", new Handshake(hello, handlerFactory, ready));
            }
        };
        open(group, address, (int) Math.min(Integer.MAX_VALUE, timeoutMillis), pipeline, ready::completeExceptionally);
        try {
            return ready.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            String to = hostPort(address);
            String why = e.getCause() instanceof java.net.ConnectException
                    ? "nothing listens there (connection refused): is a cx server running at that address?"
                    : reason(e.getCause());
            throw new IOException("cannot connect to " + to + ": " + why, e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no answer from " + hostPort(address) + " within "
                    + timeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + hostPort(address), e);
        }
    }

    /**
     * Fails over: tries {@code addresses} in the given order, round after round, until one accepts or
     * {@code deadlineMillis} pass (a server taking over from a failed one may need a moment), or until {@code group}
     * shuts down (its owner closed: nothing could use a connection). Blocking: call it off the event loop.
     * {@code values} is the process's value store, as for {@code connect}: a connection that fails over carries large
     * values as the first did.
     */
    public static Channel connectAny(EventLoopGroup group, List<String> addresses, Tls tls, Message.Hello hello,
                                     Function<Message.Welcome, ChannelHandler> handlerFactory, long deadlineMillis,
                                     ValueStore values) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
        IOException last = new IOException("no server to fail over to");
        while (System.nanoTime() < deadline) {
            for (String address : addresses) {
                if (group.isShuttingDown()) {
                    throw new IOException("stopped failing over: the client is shutting down");
                }
                try {
                    return connect(group, parseAddress(address), tls, hello, handlerFactory, 2_000, values);
                } catch (IOException | IllegalArgumentException e) {
                    last = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while failing over", e);
            }
        }
        throw last;
    }

    private static final class Handshake extends SimpleChannelInboundHandler<Message> {
        private final Message.Hello hello;
        private final Function<Message.Welcome, ChannelHandler> handlerFactory;
        private final CompletableFuture<Channel> ready;

        Handshake(Message.Hello hello, Function<Message.Welcome, ChannelHandler> handlerFactory,
                  CompletableFuture<Channel> ready) {
            this.hello = hello;
            this.handlerFactory = handlerFactory;
            this.ready = ready;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(hello);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            switch (msg) {
                case Message.Welcome welcome -> {
                    ctx.pipeline().replace(this, "handler", handlerFactory.apply(welcome));
                    ready.complete(ctx.channel());
                }
                case Message.Refused refused -> {
                    ready.completeExceptionally(new IOException("server refused the connection: " + refused.reason()));
                    ctx.close();
                }
                default -> {
                    ready.completeExceptionally(new IOException("expected Welcome, got " + msg.getClass().getSimpleName()));
                    ctx.close();
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ready.completeExceptionally(new IOException("connection closed during the handshake"
                    + (ctx.pipeline().get("tls") == null ? " (a server that requires TLS closes plain connections:"
                    + " leave out --insecure)" : "")));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ready.completeExceptionally(cause);
            ctx.close();
        }
    }

    /**
     * Opens a connection to the server at {@code server}: through its local socket where it has one on this host
     * ({@link LocalSockets}), else (or if that refuses) over TCP, {@code pipeline} (a {@link ChannelInitializer}, as it
     * may initialize both) setting it up. If the TCP connection fails, {@code failed} gets why.
     */
    public static void open(EventLoopGroup group, InetSocketAddress server, int connectMillis,
                            ChannelInitializer<Channel> pipeline, java.util.function.Consumer<Throwable> failed) {
        Bootstrap tcp = new Bootstrap().group(group).channel(EventLoops.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
                .attr(SERVER, server).handler(pipeline);
        Runnable overTcp = () -> tcp.connect(server).addListener(f -> {
            if (!f.isSuccess()) {
                failed.accept(f.cause());
            }
        });
        SocketAddress local = LocalSockets.of(server);
        if (local == null) {
            overTcp.run();
            return;
        }
        new Bootstrap().group(group).channel(EventLoops.domainSocketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
                .attr(SERVER, server).handler(pipeline)
                .connect(local).addListener(f -> {
                    if (!f.isSuccess()) { // a socket its server left behind: TCP says whether one is there
                        overTcp.run();
                    }
                });
    }

    /**
     * The server address a connection was opened to, HOST:PORT, also when it goes through a local socket ({@link
     * LocalSockets}); for an accepted connection its peer's address.
     */
    public static java.net.SocketAddress serverAddress(Channel channel) {
        InetSocketAddress server = channel.attr(SERVER).get();
        return server != null ? server : channel.remoteAddress();
    }

    /** {@code address} as a user writes it, HOST:PORT (not Java's "name/ip:port"); other addresses as they print. */
    public static String hostPort(java.net.SocketAddress address) {
        return address instanceof InetSocketAddress a ? a.getHostString() + ":" + a.getPort() : String.valueOf(address);
    }

    /** Parses {@code host:port}; throws with a message that says what is expected. */
    public static InetSocketAddress parseAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + hostPort + "'");
        }
        String host = hostPort.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port in '" + hostPort + "' is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port in '" + hostPort + "' is out of range 1..65535");
        }
        return new InetSocketAddress(host, port);
    }

    /**
     * Why a connection failed, for people: the native transport's messages start with the system call and the
     * error number ("finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:1"), which are
     * left out here.
     */
    public static String reason(Throwable cause) {
        switch (Tls.failure(cause)) {
            case Tls.Failure.NotTls n -> {
                return "the peer does not speak TLS (a server started with --insecure? then pass --insecure here too)";
            }
            case Tls.Failure.Handshake h -> {
                return "TLS handshake failed: " + h.reason() + (h.reason().contains("Received fatal alert")
                        ? " (the server refused this process's credential: issued by another authority, expired or"
                        + " revoked; the server's log says which)" : "");
            }
            case null -> { }
        }
        String message = String.valueOf(cause.getMessage());
        int syscall = message.indexOf(" failed with error(");
        int end = syscall < 0 ? -1 : message.indexOf("): ", syscall);
        return end < 0 ? message : message.substring(end + 3);
    }
}
