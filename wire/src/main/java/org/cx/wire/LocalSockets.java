package org.cx.wire;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task server's Unix domain socket beside its TCP port, for the producers, consumers and servers of its own host:
 * a message between two processes of one host through it costs the sender about a third of the CPU time that the
 * loopback's TCP costs (which runs the receiver's TCP processing in the sender's system call), and a loaded
 * machine's hops are that much shorter (decision 0032). The same pipeline runs on it, TLS included.
 *
 * <p>The socket is in a directory of this user's ({@code $TMPDIR/cx-USER}, only this user may enter it), named for what
 * the TCP socket listens on: {@code server-PORT.sock} for every address of the host, {@code server-ADDRESS-PORT.sock}
 * for one loopback address (a server listening on another address has none, as a loopback client could not reach it).
 * A client connecting to a loopback address goes through the socket for that address and port, else the one for the
 * port, and over TCP if there is neither or it refuses. {@code -Dcx.localSockets=false} turns both ends off; NIO has
 * none.
 */
public final class LocalSockets {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSockets.class);
    private static final boolean ENABLED = EventLoops.hasDomainSockets()
            && !"false".equalsIgnoreCase(System.getProperty("cx.localSockets", ""));

    private static final InetAddress ANY = new InetSocketAddress(0).getAddress();

    private LocalSockets() {
    }

    /**
     * Where the socket of a server listening on {@code address} (a wildcard or loopback address) and {@code port} is,
     * for this user.
     */
    static Path path(InetAddress address, int port) {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        String name = address.isAnyLocalAddress() ? "server-" + port + ".sock"
                : "server-" + address.getHostAddress() + "-" + port + ".sock";
        return Path.of(System.getProperty("java.io.tmpdir"), "cx-" + user, name);
    }

    /**
     * Listens on the socket for a TCP socket listening on {@code tcp}, with {@code childHandler} for what it accepts
     * and auto-read off (as the caller's TCP channel starts). Returns null where there are no local sockets, {@code
     * tcp} is on neither a wildcard nor a loopback address, or it cannot listen (logged): the server then takes
     * everything over TCP.
     */
    public static Channel listen(EventLoopGroup group, ChannelHandler childHandler, InetSocketAddress tcp) {
        InetAddress address = tcp.getAddress();
        if (!ENABLED || !(address.isAnyLocalAddress() || address.isLoopbackAddress())) {
            return null;
        }
        Path socket = path(address, tcp.getPort());
        try {
            Path dir = socket.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            }
            Files.deleteIfExists(socket); // a server of this port that died without removing it
            return new ServerBootstrap().group(group).channel(EventLoops.serverDomainSocketChannel())
                    .option(ChannelOption.AUTO_READ, false).childHandler(childHandler)
                    .bind(new DomainSocketAddress(socket.toFile())).sync().channel();
        } catch (IOException | RuntimeException e) {
            LOG.info("no local socket at {} ({}): clients of this host connect over TCP", socket, e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Closes what {@link #listen} opened (null: nothing) and removes its socket. */
    public static void close(Channel listening) {
        if (listening == null) {
            return;
        }
        Path socket = Path.of(((DomainSocketAddress) listening.localAddress()).path());
        listening.close().syncUninterruptibly();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.debug("could not remove {}: {}", socket, e.getMessage());
        }
    }

    /** The local socket to reach {@code server} through, or null if it is not on this host or has none. */
    static SocketAddress of(InetSocketAddress server) {
        InetAddress address = server.getAddress();
        if (!ENABLED || address == null || !address.isLoopbackAddress()) {
            return null;
        }
        for (Path socket : List.of(path(address, server.getPort()), path(ANY, server.getPort()))) {
            if (Files.exists(socket)) {
                return new DomainSocketAddress(socket.toFile());
            }
        }
        return null;
    }
}
