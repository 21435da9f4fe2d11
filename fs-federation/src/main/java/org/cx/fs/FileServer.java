package org.cx.fs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.MoreExecutors;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.fs.FsException.Code;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file server: exports a directory of its host's disk to the federation. Files created through the federation are
 * blobs in {@code ROOT/.cx-fs/blobs}, written to {@code .cx-fs/incoming} first and renamed into place only when all
 * their blocks arrived, matched their CRC32C and were forced to the disk; files already under the root can be linked
 * into the namespace where they are ({@code @path} blobs). Disk work runs on a pool of its own, in order per
 * connection; a connection that sends faster than the disk writes is paused (no unbounded buffer). Reads go out
 * zero-copy ({@code sendfile}) on plain connections.
 *
 * <p>It registers with its name service at start and every {@link NameService#RENEW} ({@link Registration}), with
 * its id (kept in {@code .cx-fs/id}, so it survives restarts and new addresses), its address and its free space;
 * blobs on their way in are {@link IncomingBlob}s.
 */
public final class FileServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileServer.class);
    static final String RESERVED = ".cx-fs";
    /** Bytes a connection may have waiting for the disk before it is paused. */
    private static final long PAUSE_ABOVE = 8L << 20;
    private static final int READS_IN_FLIGHT = 4;

    /**
     * How to start a file server.
     *
     * @param root      the directory it exports
     * @param host      the address to listen on
     * @param port      the port (0: any free one)
     * @param advertise the host others reach it at (null: {@code host}, or a routable address of this machine when
     *                  that is a wildcard)
     * @param names     the name service's address
     * @param tls       this server's credential (a server's), or null for plain connections
     * @param bytesPerSecond a bandwidth limit on reads and writes (0: none), standing in for a slow disk or link
     */
    public record Config(Path root, String host, int port, String advertise, String names, Tls tls,
                         long bytesPerSecond) {
    }

    private final Config config;
    private final Path root;
    private final Path blobs;
    private final Path incoming;
    private final String id;
    /**
     * Threads that write, force and read blobs (each connection's work in order on them). Small files spend their
     * time waiting for forced writes, not on the CPU: with more of them in flight the disk and its file system's
     * journal batch them (16 threads made creates from 16 clients about twice as fast as 4).
     */
    private static final int DISK_THREADS = 16;
    private final ExecutorService disk = Executors.newFixedThreadPool(DISK_THREADS, r -> {
        Thread t = new Thread(r, "cx-fs-disk");
        t.setDaemon(true);
        return t;
    });
    private final Throttle throttle;
    private final FsListener listener;
    private final ScheduledExecutorService renewal = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cx-fs-register");
        t.setDaemon(true);
        return t;
    });
    private final Registration registration;
    /**
     * Blobs a writer stored and said it will not name (a transfer ended to read back what it sent), by the caller
     * who wrote them: that caller may delete them, as only the service's own processes and admins may others.
     */
    private final Cache<String, String> unnamed = CacheBuilder.newBuilder().maximumSize(10_000)
            .expireAfterWrite(Duration.ofHours(1)).build();

    private FileServer(Config config) throws IOException {
        this.config = config;
        this.root = config.root().toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new FsException(Code.ENOENT, root + " is not a directory: give the directory to export with "
                    + "--root");
        }
        this.blobs = Files.createDirectories(root.resolve(RESERVED).resolve("blobs"));
        this.incoming = Files.createDirectories(root.resolve(RESERVED).resolve("incoming"));
        try (var stale = Files.list(incoming)) {
            for (Path p : stale.toList()) {
                Files.deleteIfExists(p); // transfers cut short by a crash: never named, never visible
            }
        }
        this.id = idOf(root.resolve(RESERVED).resolve("id"));
        this.throttle = new Throttle(config.bytesPerSecond());
        this.listener = new FsListener("cx-fs-serve", config.host(), config.port(), config.tls(), Handler::new);
        this.registration = new Registration(id, config.names(), config.tls(), root, this::address);
    }

    public static FileServer start(Config config) throws IOException {
        FileServer s = new FileServer(config);
        s.renewal.scheduleWithFixedDelay(s.registration::renew, 0, NameService.RENEW.toMillis(),
                TimeUnit.MILLISECONDS);
        return s;
    }

    private static String idOf(Path file) throws IOException {
        if (Files.exists(file)) {
            return Files.readString(file).trim();
        }
        byte[] b = new byte[6];
        new SecureRandom().nextBytes(b);
        String id = "fs-" + HexFormat.of().formatHex(b);
        Files.writeString(file, id + "\n");
        return id;
    }

    public String id() {
        return id;
    }

    public int port() {
        return listener.port();
    }

    /** The address this server gives the name service: host others reach it at, and port. */
    public String address() {
        return org.cx.wire.Listening.advertised(config.host(), config.advertise()) + ":" + port();
    }

    /** Whether a primary name service took the last registration. */
    public boolean registered() {
        return registration.registered();
    }

    // ---------------------------------------------------------------- blobs

    private Path blobPath(String blob) throws FsException {
        if (blob.startsWith("@")) {
            return SafePaths.file(root, blob.substring(1), RESERVED);
        }
        if (!blob.matches("[0-9a-f]{32}")) {
            throw new FsException(Code.EINVAL, "'" + blob + "' is not a blob name");
        }
        return blobs.resolve(blob.substring(0, 2)).resolve(blob);
    }

    /** The CRC32C of each block of {@code file}. */
    private List<Integer> crcsOf(Path file) throws IOException {
        List<Integer> crcs = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocateDirect(Blocks.SIZE);
            while (true) {
                b.clear();
                while (b.hasRemaining() && ch.read(b) >= 0) {
                    // fill the block
                }
                if (b.position() == 0) {
                    break;
                }
                b.flip();
                crcs.add(Blocks.crc(b));
                if (b.limit() < Blocks.SIZE) {
                    break;
                }
            }
        }
        return crcs;
    }

    // ---------------------------------------------------------------- connections

    /** One connection: requests in order, disk work in order on the shared pool. */
    private final class Handler extends FsHandler {
        private final Executor serial = MoreExecutors.newSequentialExecutor(disk);
        private final AtomicLong waiting = new AtomicLong();
        private IncomingBlob put;
        /** The blob {@link #put} stores. */
        private String putBlob;

        @Override
        protected Tls tls() {
            return config.tls();
        }

        @Override
        protected void request(ChannelHandlerContext ctx, String op, ObjectNode r) throws FsException {
            switch (op) {
                case "put" -> {
                    if (put != null) {
                        throw new FsException(Code.EINVAL, "a put while another is under way");
                    }
                    String blob = Json.text(r, "blob");
                    Path target = blobPath(blob);
                    if (blob.startsWith("@")) {
                        throw new FsException(Code.EINVAL, "a put makes a new blob, not a linked file");
                    }
                    put = new IncomingBlob(target, incoming, throttle, id);
                    putBlob = blob;
                    IncomingBlob p = put;
                    serial.execute(() -> p.open(ctx));
                }
                case "end" -> {
                    if (put == null) {
                        throw new FsException(Code.EINVAL, "'end' without a put");
                    }
                    IncomingBlob p = put;
                    put = null;
                    if (r.path("unnamed").asBoolean(false)) {
                        unnamed.put(putBlob, caller.name());
                    }
                    List<Integer> crcs = new ArrayList<>();
                    r.path("crcs").forEach(c -> crcs.add(c.asInt()));
                    serial.execute(() -> p.end(ctx, crcs));
                }
                case "get" -> {
                    Path file = blobPath(Json.text(r, "blob"));
                    long offset = r.path("offset").asLong(0);
                    long length = r.path("length").asLong(Long.MAX_VALUE);
                    serial.execute(() -> get(ctx, file, offset, length));
                }
                case "check", "adopt" -> {
                    String blob = op.equals("adopt") ? "@" + Json.text(r, "path") : Json.text(r, "blob");
                    Path file = blobPath(blob);
                    serial.execute(() -> {
                        try {
                            ObjectNode ok = Json.object().put("ok", true).put("blob", blob)
                                    .put("size", Files.size(file));
                            ArrayNode crcs = ok.putArray("crcs");
                            crcsOf(file).forEach(crcs::add);
                            reply(ctx, ok);
                        } catch (IOException e) {
                            refuse(ctx, new FsException(Code.EIO, "cannot read " + blob + ": " + e.getMessage()));
                        }
                    });
                }
                case "delete" -> {
                    String blob = Json.text(r, "blob");
                    if (caller.name().equals(unnamed.getIfPresent(blob))) {
                        unnamed.invalidate(blob);
                    } else {
                        requireServer("delete blobs other than those they stored and did not name");
                    }
                    Path file = blobPath(blob);
                    serial.execute(() -> {
                        try {
                            Files.deleteIfExists(file);
                            reply(ctx, Json.object().put("ok", true));
                        } catch (IOException e) {
                            refuse(ctx, new FsException(Code.EIO, "cannot delete: " + e.getMessage()));
                        }
                    });
                }
                case "blobs" -> {
                    requireServer("list blobs");
                    serial.execute(() -> listBlobs(ctx));
                }
                default -> throw new FsException(Code.EINVAL, "unknown request '" + op + "'");
            }
        }

        @Override
        protected void data(ChannelHandlerContext ctx, ByteBuf frame) {
            IncomingBlob p = put;
            if (p == null) {
                refuse(ctx, new FsException(Code.EINVAL, "data outside a put"));
                return;
            }
            ByteBuf block = frame.retain();
            int n = block.readableBytes();
            if (waiting.addAndGet(n) > PAUSE_ABOVE) {
                ctx.channel().config().setAutoRead(false);
            }
            serial.execute(() -> {
                try {
                    p.write(block);
                } finally {
                    block.release();
                    if (waiting.addAndGet(-n) <= PAUSE_ABOVE / 4 && !ctx.channel().config().isAutoRead()) {
                        ctx.channel().eventLoop().execute(() -> ctx.channel().config().setAutoRead(true));
                    }
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            IncomingBlob p = put;
            if (p != null) {
                put = null;
                serial.execute(p::abandon);
            }
            ctx.fireChannelInactive();
        }
    }

    // ---------------------------------------------------------------- reads

    private void get(ChannelHandlerContext ctx, Path file, long offset, long length) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            FsHandler.refuse(ctx, new FsException(Code.ENOENT, "file server " + id + " has no " + file.getFileName()
                    + " (" + e.getMessage() + "): run cx fs fsck"));
            return;
        }
        if (offset < 0 || offset > size || offset % Blocks.SIZE != 0) {
            FsHandler.refuse(ctx, new FsException(Code.EINVAL, "a read starts at a block boundary within the file,"
                    + " not at " + offset));
            return;
        }
        long end = offset + Math.min(length, size - offset);
        FsHandler.reply(ctx, Json.object().put("ok", true).put("length", end - offset));
        new Sender(ctx, file, offset, end).pump();
    }

    /** Sends a file's blocks, a few in flight at a time, each when the one before it went out. */
    private final class Sender {
        private final ChannelHandlerContext ctx;
        private final Path file;
        private final long end;
        private final boolean zeroCopy;
        private final Executor serial = MoreExecutors.newSequentialExecutor(disk);
        private final AtomicInteger inFlight = new AtomicInteger();
        private long position;
        private FileChannel channel;

        Sender(ChannelHandlerContext ctx, Path file, long offset, long end) {
            this.ctx = ctx;
            this.file = file;
            this.position = offset;
            this.end = end;
            this.zeroCopy = ctx.pipeline().get(SslHandler.class) == null;
        }

        void pump() {
            serial.execute(this::send);
        }

        private void send() {
            try {
                while (inFlight.get() < READS_IN_FLIGHT && position < end && ctx.channel().isActive()) {
                    int n = (int) Math.min(Blocks.SIZE, end - position);
                    throttle.take(n);
                    ctx.write(FsFrames.dataHeader(ctx.alloc(), n));
                    Object body;
                    if (zeroCopy) {
                        body = new DefaultFileRegion(file.toFile(), position, n);
                    } else {
                        if (channel == null) {
                            channel = FileChannel.open(file, StandardOpenOption.READ);
                        }
                        ByteBuf b = ctx.alloc().buffer(n);
                        try {
                            while (b.readableBytes() < n) {
                                if (b.writeBytes(channel, position + b.readableBytes(), n - b.readableBytes()) < 0) {
                                    throw new java.io.EOFException("the file ended while it was read");
                                }
                            }
                        } catch (IOException e) {
                            b.release();
                            throw e;
                        }
                        body = b;
                    }
                    position += n;
                    inFlight.incrementAndGet();
                    ctx.writeAndFlush(body).addListener(f -> {
                        inFlight.decrementAndGet();
                        if (f.isSuccess()) {
                            pump();
                        } else {
                            ctx.close();
                        }
                    });
                }
                if (position >= end && channel != null) {
                    channel.close();
                    channel = null;
                }
            } catch (IOException e) {
                LOG.warn("file server {}: reading {} failed: {}", id, file, e.getMessage());
                ctx.close(); // the client sees the stream end short of the length and says so
            }
        }
    }

    /** Every blob on this server's disk, with its size and its age in seconds (since last written). */
    private void listBlobs(ChannelHandlerContext ctx) {
        ObjectNode ok = Json.object().put("ok", true);
        ArrayNode list = ok.putArray("blobs");
        long now = System.currentTimeMillis();
        try (var files = Files.walk(blobs)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                var attributes = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class);
                list.addObject().put("blob", p.getFileName().toString()).put("size", attributes.size())
                        .put("ageSeconds", (now - attributes.lastModifiedTime().toMillis()) / 1000);
            }
            FsHandler.reply(ctx, ok);
        } catch (IOException | java.io.UncheckedIOException e) {
            FsHandler.refuse(ctx, new FsException(Code.EIO, "cannot list blobs: " + e.getMessage()));
        }
    }

    @Override
    public void close() {
        renewal.shutdownNow();
        listener.close();
        disk.shutdownNow();
        registration.close();
    }
}
