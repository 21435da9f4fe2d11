package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.cx.security.CredentialRole;
import org.cx.security.ThrowAwayCredentials;
import org.cx.security.Tls;
import org.cx.testing.Await;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unmodified NIO code on {@code cx://} paths, against a name service and a file server on loopback. */
class NioProviderTest {
    @TempDir
    Path dir;

    @Test
    void nioCodeWorksOnFederatedPaths() throws Exception {
        Random random = new Random(Seeds.seed("NioProviderTest"));
        ThrowAwayCredentials keys = ThrowAwayCredentials.make();
        Tls serverTls = keys.tls(CredentialRole.SERVER, "fs");
        Files.createDirectories(dir.resolve("disk"));
        try (NameService names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", 0,
                serverTls));
             FileServer server = FileServer.start(new FileServer.Config(dir.resolve("disk"), "127.0.0.1", 0, null,
                     "127.0.0.1:" + names.port(), serverTls, 0));
             FileSystem fs = FileSystems.newFileSystem(URI.create("cx://127.0.0.1:" + names.port() + "/"),
                     Map.of("tls", keys.tls(CredentialRole.USER, "ann")))) {
            Await.until("the file server to register", Duration.ofSeconds(30), server::registered);
            Path data = fs.getPath("/data");
            Files.createDirectories(data.resolve("deep/er"));
            Path text = data.resolve("lines.txt");
            Files.write(text, List.of("one", "two", "three"));
            assertEquals(List.of("one", "two", "three"), Files.readAllLines(text));
            assertEquals(text, Path.of(text.toUri()));

            byte[] big = new byte[20 * Blocks.SIZE + 333];
            random.nextBytes(big);
            Path bin = data.resolve("deep/big.bin");
            try (OutputStream out = Files.newOutputStream(bin)) {
                for (int i = 0; i < big.length; i += 7919) { // small writes, coalesced into blocks
                    out.write(big, i, Math.min(7919, big.length - i));
                }
            }
            assertArrayEquals(big, Files.readAllBytes(bin));
            try (SeekableByteChannel ch = Files.newByteChannel(bin)) {
                assertEquals(big.length, ch.size());
                for (int k = 0; k < 20; k++) {
                    int at = random.nextInt(big.length - 100);
                    ByteBuffer b = ByteBuffer.allocate(100);
                    ch.position(at);
                    while (b.hasRemaining()) {
                        ch.read(b);
                    }
                    assertArrayEquals(java.util.Arrays.copyOfRange(big, at, at + 100), b.array(), "at " + at);
                }
                // as a FUSE mount's threads read: in order but for pieces swapped now and then, with a few jumps
                int piece = 128 << 10;
                List<Integer> order = new java.util.ArrayList<>();
                for (int at = 0; at < big.length; at += piece) {
                    order.add(at);
                }
                for (int k = 1; k < order.size(); k++) {
                    if (random.nextInt(4) == 0) {
                        java.util.Collections.swap(order, k - 1, k);
                    }
                }
                order.add(order.size() / 2, 2 * Blocks.SIZE); // back to a block long passed
                order.add(order.size() / 2, 18 * Blocks.SIZE); // ahead, beyond the read-ahead
                for (int at : order) {
                    ByteBuffer b = ByteBuffer.allocate(Math.min(piece, big.length - at));
                    ch.position(at);
                    while (b.hasRemaining()) {
                        ch.read(b);
                    }
                    assertArrayEquals(java.util.Arrays.copyOfRange(big, at, at + b.capacity()), b.array(),
                            "at " + at);
                }
            }

            PosixFileAttributes a = Files.readAttributes(bin, PosixFileAttributes.class);
            assertEquals(big.length, a.size());
            assertEquals("ann", a.owner().getName());
            assertEquals("ann", Files.getOwner(bin).getName());
            assertEquals("rw-r--r--", PosixFilePermissions.toString(a.permissions()));
            assertEquals((long) big.length, Files.getAttribute(bin, "size"));

            Files.copy(text, data.resolve("copy.txt"));
            assertThrows(FileAlreadyExistsException.class, () -> Files.copy(text, data.resolve("copy.txt")));
            Files.move(data.resolve("copy.txt"), data.resolve("deep/er/moved.txt"));
            assertFalse(Files.exists(data.resolve("copy.txt")));
            assertEquals("one\ntwo\nthree\n", Files.readString(data.resolve("deep/er/moved.txt"),
                    StandardCharsets.UTF_8));
            try (Stream<Path> walk = Files.walk(data)) {
                assertEquals(List.of("/data", "/data/deep", "/data/deep/big.bin", "/data/deep/er",
                        "/data/deep/er/moved.txt", "/data/lines.txt"), walk.map(Path::toString).sorted().toList());
            }
            try (Stream<Path> list = Files.list(data)) {
                assertEquals(2, list.count());
            }
            assertThrows(NoSuchFileException.class, () -> Files.readAllBytes(data.resolve("nothing")));
            assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(data.resolve("deep")));
            Files.delete(data.resolve("deep/er/moved.txt"));
            assertTrue(Files.isDirectory(data.resolve("deep/er")));
            assertTrue(Files.getFileStore(text).getUsableSpace() > 0);

            try (OutputStream one = Files.newOutputStream(data.resolve("a.bin"));
                 OutputStream two = Files.newOutputStream(data.resolve("b.bin"))) {
                byte[] block = new byte[Blocks.SIZE];
                for (int i = 0; i < 3 * 8; i++) { // both files open at once, written by turns
                    one.write(block);
                    two.write(block);
                }
            }
            assertEquals(3L * 8 * Blocks.SIZE, Files.size(data.resolve("b.bin")));

            Path local = dir.resolve("local.bin");
            Files.copy(bin, local); // across providers
            assertArrayEquals(big, Files.readAllBytes(local));
        }
    }
}
