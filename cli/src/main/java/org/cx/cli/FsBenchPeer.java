package org.cx.cli;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The other end of {@code cx bench fs}'s baseline: a plain TCP copy between two processes, the seed's ftp. Prints
 * its port, then serves copies one connection at a time: a connection first says which way (1: it sends bytes
 * to be written to FILE and forced; 2: it asks for FILE's bytes) and, to write, how many.
 */
final class FsBenchPeer {
    private FsBenchPeer() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            System.out.println("port " + server.getLocalPort());
            System.out.flush();
            byte[] buffer = new byte[1 << 20];
            while (true) {
                try (Socket s = server.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    int way = in.readByte();
                    if (way == 1) {
                        long n = in.readLong();
                        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                            for (long done = 0; done < n; ) {
                                int r = in.read(buffer, 0, (int) Math.min(buffer.length, n - done));
                                if (r < 0) {
                                    throw new IOException("the sender stopped at " + done + " of " + n);
                                }
                                ch.write(java.nio.ByteBuffer.wrap(buffer, 0, r));
                                done += r;
                            }
                            ch.force(true);
                        }
                        out.write(1);
                    } else {
                        try (InputStream f = java.nio.file.Files.newInputStream(file)) {
                            DataOutputStream d = new DataOutputStream(out);
                            d.writeLong(java.nio.file.Files.size(file));
                            f.transferTo(d);
                            d.flush();
                        }
                    }
                }
            }
        }
    }
}
