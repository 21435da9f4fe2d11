package org.cx.discovery;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.ServerSocket;
import javax.net.ServerSocketFactory;

/** Server sockets bound to one address, for the lookup service's unicast listener (River binds all otherwise). */
public final class BoundServerSocketFactory extends ServerSocketFactory implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String host;

    public BoundServerSocketFactory(String host) {
        this.host = host;
    }

    @Override
    public ServerSocket createServerSocket() throws IOException {
        return new ServerSocket() {
            @Override
            public void bind(java.net.SocketAddress endpoint, int backlog) throws IOException {
                int port = endpoint instanceof java.net.InetSocketAddress a ? a.getPort() : 0;
                super.bind(new java.net.InetSocketAddress(InetAddress.getByName(host), port), backlog);
            }
        };
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return new ServerSocket(port, 50, InetAddress.getByName(host));
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog) throws IOException {
        return new ServerSocket(port, backlog, InetAddress.getByName(host));
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog, InetAddress ignored) throws IOException {
        return new ServerSocket(port, backlog, InetAddress.getByName(host));
    }
}
