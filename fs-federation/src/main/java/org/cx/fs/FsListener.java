package org.cx.fs;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.function.Supplier;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;
import org.cx.wire.EventLoops;

/** A listening socket and event loops of a service that speaks the file service's frames (also the accounting service). */
public final class FsListener implements AutoCloseable {
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel channel;

    public FsListener(String name, String host, int port, Tls tls, Supplier<? extends FsHandler> handler) throws FsException {
        boss = EventLoops.create(name + "-accept", 1);
        workers = EventLoops.create(name + "-io", 2);
        try {
            channel = new ServerBootstrap().group(boss, workers).channel(EventLoops.serverChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            FsFrames.install(ch, tls);
                            ch.pipeline().addLast("fs", handler.get());
                        }
                    }).bind(host, port).sync().channel();
        } catch (Exception e) {
            close();
            throw new FsException(Code.EIO, "cannot listen on " + host + ":" + port + ": " + e.getMessage()
                    + (port != 0 ? " (is another process using that port? choose another with --port)" : ""), e);
        }
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
