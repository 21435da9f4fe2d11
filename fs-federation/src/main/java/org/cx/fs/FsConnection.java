package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;

/**
 * One blocking connection to a name service or file server, as a client holds it: a request, then its reply (and for
 * transfers, the DATA frames between). Not for concurrent use; {@link FsClient} keeps a pool of them.
 */
public final class FsConnection implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    /** The longest wait for a reply or the next block: then the peer is taken as hung, and the call fails. */
    private static final int REPLY_TIMEOUT_MILLIS = 120_000;
    private static final int BUFFER = 256 << 10;

    private final String address;
    /** The connection's socket; null for one through a {@link FsRelay}, whose far side keeps the timeouts. */
    private final Socket socket;
    private final Closeable link;
    private final DataInputStream in;
    private final DataOutputStream out;
    private String identity;
    private ObjectNode hello;

    private FsConnection(String address, Socket socket) throws IOException {
        this(address, socket, socket, socket.getInputStream(), socket.getOutputStream());
    }

    private FsConnection(String address, Socket socket, Closeable link, InputStream in, OutputStream out) {
        this.address = address;
        this.socket = socket;
        this.link = link;
        this.in = new DataInputStream(new BufferedInputStream(in, BUFFER));
        this.out = new DataOutputStream(new BufferedOutputStream(out, BUFFER));
    }

    /**
     * Connects to {@code address} (host:port) and says who calls: with {@code tls} its credential (the peer must be
     * a server of the network), else plainly as {@code user}.
     */
    public static FsConnection open(String address, Tls tls, String user) throws FsException {
        return open(address, tls, user, 0);
    }

    /** As {@link #open(String, Tls, String)}, telling a name service the highest epoch this caller has seen. */
    static FsConnection open(String address, Tls tls, String user, long epoch) throws FsException {
        return open(address, tls, ActingFor.plainly(user), epoch);
    }

    /**
     * As {@link #open(String, Tls, String, long)}, for {@code who}: with a producer's credential, the owner of a task
     * it runs and its task server's grant.
     */
    static FsConnection open(String address, Tls tls, ActingFor who, long epoch) throws FsException {
        HostPort hp = HostPort.parse(address);
        Socket s = null;
        try {
            s = SocketChannel.open().socket(); // blocking: its streams keep the timeouts; TLS uses the channel
            s.connect(new InetSocketAddress(hp.host(), hp.port()), CONNECT_TIMEOUT_MILLIS);
            s.setTcpNoDelay(true);
            s.setSoTimeout(REPLY_TIMEOUT_MILLIS);
            FsConnection c;
            if (tls == null) {
                c = new FsConnection(address, s);
            } else {
                EngineStreams secured = EngineStreams.handshake(s.getChannel(), tls.clientEngine());
                c = new FsConnection(address, s, s, secured.in(), secured.out());
            }
            ObjectNode hello = Json.op("hello").put("epoch", epoch);
            who.addTo(hello);
            c.hello = c.call(hello);
            c.identity = c.hello.path("as").asText();
            return c;
        } catch (FsException e) {
            closeQuietly(s);
            throw e;
        } catch (IOException e) {
            closeQuietly(s);
            throw new FsException(Code.EIO, "cannot reach the file service at " + address + ": " + e.getMessage()
                    + (e instanceof java.net.ConnectException ? " (is a cx fs process running there?)" : ""), e);
        }
    }

    /**
     * Connects to {@code address} through the relay listening on the Unix socket {@code relay} (a task's producer):
     * the relay reaches the service, says hello for the task's owner and answers with the service's hello.
     */
    static FsConnection viaRelay(Path relay, String address, long epoch) throws FsException {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(UnixDomainSocketAddress.of(relay));
            FsConnection c = new FsConnection(address, null, channel, ChannelStreams.in(channel),
                    ChannelStreams.out(channel));
            c.hello = c.call(Json.op("via").put("to", address).put("epoch", epoch));
            c.identity = c.hello.path("as").asText();
            return c;
        } catch (FsException e) {
            closeQuietly(channel);
            throw e;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new FsException(Code.EIO, "cannot reach the file service through this producer's relay " + relay
                    + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(Closeable s) {
        try {
            if (s != null) {
                s.close();
            }
        } catch (IOException ignored) {
            // closing after a failure
        }
    }

    String address() {
        return address;
    }

    /** What the peer said to hello (a name service: its role and epoch). */
    ObjectNode hello() {
        return hello;
    }

    /** Waits at most {@code millis} for each frame from now on. */
    void timeout(int millis) throws FsException {
        if (socket == null) {
            return;
        }
        try {
            socket.setSoTimeout(millis);
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /** Who the peer takes this connection's caller for. */
    public String identity() {
        return identity;
    }

    /** Sends {@code request} and returns its reply; an error reply is thrown as the {@link FsException} it says. */
    public ObjectNode call(ObjectNode request) throws FsException {
        send(request);
        return reply();
    }

    void send(ObjectNode request) throws FsException {
        try {
            byte[] body = Json.MAPPER.writeValueAsBytes(request);
            out.writeInt(body.length + 1);
            out.writeByte(FsFrames.JSON);
            out.write(body);
            out.flush();
        } catch (IOException e) {
            throw lost(e);
        }
    }

    ObjectNode reply() throws FsException {
        try {
            int length = in.readInt();
            byte kind = in.readByte();
            if (kind != FsFrames.JSON || length < 1 || length > FsFrames.MAX_FRAME + 1) {
                throw new FsException(Code.EIO, address + " sent a frame of kind " + kind + " and length " + length
                        + " where a reply was due");
            }
            byte[] body = new byte[length - 1];
            in.readFully(body);
            JsonNode reply = Json.MAPPER.readTree(body);
            if (reply.has("error")) {
                Code code;
                try {
                    code = Code.valueOf(reply.path("code").asText("EIO"));
                } catch (IllegalArgumentException e) {
                    code = Code.EIO;
                }
                throw new FsException(code, reply.path("error").asText());
            }
            return (ObjectNode) reply;
        } catch (FsException e) {
            throw e;
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /** Sends {@code length} bytes of {@code bytes} as one DATA frame (buffered: {@link #flush} or a request sends). */
    void data(byte[] bytes, int offset, int length) throws FsException {
        try {
            out.writeInt(length + 1);
            out.writeByte(FsFrames.DATA);
            out.write(bytes, offset, length);
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /** Reads one DATA frame into {@code into}; returns its length. */
    int readData(byte[] into) throws FsException {
        try {
            int length = in.readInt();
            byte kind = in.readByte();
            if (kind == FsFrames.JSON) {
                byte[] body = new byte[length - 1];
                in.readFully(body);
                JsonNode reply = Json.MAPPER.readTree(body);
                throw new FsException(Code.EIO, address + " stopped sending: " + reply.path("error").asText());
            }
            if (kind != FsFrames.DATA || length - 1 > into.length || length < 1) {
                throw new FsException(Code.EIO, address + " sent a frame of kind " + kind + " and length " + length
                        + " where data was due");
            }
            in.readFully(into, 0, length - 1);
            return length - 1;
        } catch (FsException e) {
            throw e;
        } catch (IOException e) {
            throw lost(e);
        }
    }

    private FsException lost(IOException e) {
        String why = e instanceof EOFException ? "it closed the connection"
                : e instanceof java.net.SocketTimeoutException ? "no answer in " + REPLY_TIMEOUT_MILLIS / 1000 + " s"
                : e.getMessage();
        return new FsException(Code.EIO, "lost the connection to " + address + " (" + why + ")", e);
    }

    /** The connection's streams after hello, for a relay to pass bytes through. */
    InputStream input() {
        return in;
    }

    OutputStream output() {
        return out;
    }

    @Override
    public void close() {
        closeQuietly(link);
    }
}
