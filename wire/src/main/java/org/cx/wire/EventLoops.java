package org.cx.wire;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates Netty event loop groups with named daemon threads, and names the socket channel classes that go with
 * them. On Linux (x86-64 and ARM64) this is Netty's native epoll transport, elsewhere NIO; {@code
 * -Dcx.transport=nio} chooses NIO everywhere. Every group and channel of a process uses the same transport, since
 * a channel can only be registered with a loop of its own kind.
 */
public final class EventLoops {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);
    /** Epoll: a task's hop to an idle worker wakes threads faster than NIO (see docs/benchmarks.md). */
    private static final boolean EPOLL = chooseEpoll(System.getProperty("cx.transport", ""));

    private EventLoops() {
    }

    private static boolean chooseEpoll(String asked) {
        String transport = asked.trim().toLowerCase(Locale.ROOT);
        if (transport.equals("nio")) {
            return false;
        }
        if (!transport.isEmpty() && !transport.equals("epoll")) {
            LOG.warn("-Dcx.transport={} is not a transport (epoll or nio); using the default", asked);
        }
        if (!Epoll.isAvailable()) {
            if (transport.equals("epoll")) {
                LOG.warn("-Dcx.transport=epoll: the native epoll transport is not available here ({}); using NIO",
                        Epoll.unavailabilityCause().getMessage());
            }
            return false;
        }
        return true;
    }

    public static EventLoopGroup create(String name, int threads) {
        IoHandlerFactory io = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), io);
    }

    /** The client socket channel class for groups made by {@link #create}. */
    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The listening socket channel class for groups made by {@link #create}. */
    public static Class<? extends ServerChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Whether this transport has Unix domain sockets ({@link LocalSockets}): epoll's do. */
    static boolean hasDomainSockets() {
        return EPOLL;
    }

    /** The client Unix domain socket channel class, where {@link #hasDomainSockets()}. */
    static Class<? extends Channel> domainSocketChannel() {
        return EpollDomainSocketChannel.class;
    }

    /** The listening Unix domain socket channel class, where {@link #hasDomainSockets()}. */
    static Class<? extends ServerChannel> serverDomainSocketChannel() {
        return EpollServerDomainSocketChannel.class;
    }

    /** The transport in use: {@code "epoll"} or {@code "nio"} (for logs and benchmark reports). */
    public static String transport() {
        return EPOLL ? "epoll" : "nio";
    }
}
