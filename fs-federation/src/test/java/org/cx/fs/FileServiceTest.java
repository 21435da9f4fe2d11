package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.cx.fs.FsException.Code;
import org.cx.security.CredentialRole;
import org.cx.security.ThrowAwayCredentials;
import org.cx.security.Tls;
import org.cx.testing.Await;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A name service and two file servers on loopback, with TLS credentials of a throw-away authority: files go in and
 * out whole and checked (also as local copies and back), names change atomically, and the namespace survives a
 * restart.
 */
class FileServiceTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void filesGoInAndOutWholeAndTheNamespaceSurvivesARestart() throws Exception {
        Random random = new Random(Seeds.seed("FileServiceTest"));
        ThrowAwayCredentials keys = ThrowAwayCredentials.make();
        Tls serverTls = keys.tls(CredentialRole.SERVER, "fs");
        Tls ann = keys.tls(CredentialRole.USER, "ann");
        Tls bob = keys.tls(CredentialRole.USER, "bob");
        byte[] big = new byte[3 * Blocks.SIZE + 12345];
        random.nextBytes(big);
        Files.createDirectories(dir.resolve("disk1/data"));
        Files.write(dir.resolve("disk1/data/old.bin"), big);
        int port;
        try (NameService names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", 0,
                serverTls));
             FileServer one = server(names, "disk1", serverTls);
             FileServer two = server(names, "disk2", serverTls)) {
            port = names.port();
            try (FsClient a = FsClient.connect("127.0.0.1:" + port, ann, null);
                 FsClient b = FsClient.connect("127.0.0.1:" + port, bob, null)) {
                Await.until("both file servers to register", WAIT, () -> one.registered() && two.registered());
                a.mkdir("/ann/results", true);
                Entry written = a.write("/ann/results/big.bin", new ByteArrayInputStream(big), big.length,
                        FsClient.Progress.NONE);
                assertEquals(big.length, written.size());
                assertEquals("ann", written.owner());
                assertArrayEquals(big, read(b, "/ann/results/big.bin"));
                // A reader whose own writes fail stops the transfer; the client reads on over fresh connections.
                java.io.IOException full = assertThrows(java.io.IOException.class, () -> b.read(
                        "/ann/results/big.bin", new FailsAfter(Blocks.SIZE + 1), FsClient.Progress.NONE));
                assertEquals("disk full", full.getMessage());
                assertArrayEquals(big, read(b, "/ann/results/big.bin"));

                a.write("/ann/empty", new ByteArrayInputStream(new byte[0]), 0, FsClient.Progress.NONE);

                FsClient.Placement onTwo = FsClient.Placement.SINGLE.onlyOn("id=" + two.id() + ",host=*");
                for (int i = 0; i < 3; i++) {
                    Entry placed = a.write("/ann/placed" + i, new ByteArrayInputStream(new byte[10]), 10, onTwo,
                            FsClient.Progress.NONE);
                    assertEquals(List.of(two.id()), placed.columns().get(0).servers());
                    assertEquals(onTwo.only(), a.stat("/ann/placed" + i).only());
                }
                FsException nowhere = assertThrows(FsException.class, () -> a.write("/ann/nowhere",
                        new ByteArrayInputStream(new byte[1]), 1, FsClient.Placement.SINGLE.onlyOn("host=no-such-*"),
                        FsClient.Progress.NONE));
                assertTrue(nowhere.getMessage().contains("no file server up matches host=no-such-*"),
                        nowhere.getMessage());
                assertEquals(Code.EINVAL, assertThrows(FsException.class, () -> a.write("/ann/bad",
                        new ByteArrayInputStream(new byte[1]), 1, FsClient.Placement.SINGLE.onlyOn("rack=3"),
                        FsClient.Progress.NONE)).code());
                assertEquals(0, read(a, "/ann/empty").length);

                FsException refused = assertThrows(FsException.class, () -> b.write("/ann/results/big.bin",
                        new ByteArrayInputStream(new byte[1]), 1, FsClient.Progress.NONE));
                assertEquals(Code.EACCES, refused.code());
                assertTrue(refused.getMessage().contains("bob may not"), refused.getMessage());

                a.rename("/ann/results/big.bin", "/ann/big.bin");
                assertEquals(Code.ENOENT, assertThrows(FsException.class,
                        () -> a.stat("/ann/results/big.bin")).code());

                Entry linked = a.link(one.id(), "data/old.bin", "/ann/old.bin");
                assertTrue(linked.linked());
                assertArrayEquals(big, read(a, "/ann/old.bin"));
                assertEquals(Code.EACCES, assertThrows(FsException.class,
                        () -> a.link(one.id(), "../names/journal.jsonl", "/ann/x")).code());
                a.remove("/ann/old.bin", false);
                assertTrue(Files.exists(dir.resolve("disk1/data/old.bin")), "a linked file stays on its disk");
            }
        }
        try (NameService names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", port,
                serverTls));
             FileServer one = server(names, "disk1", serverTls);
             FileServer two = server(names, "disk2", serverTls);
             FsClient a = FsClient.connect("127.0.0.1:" + port, ann, null)) {
            Await.until("both file servers to register again", WAIT, () -> one.registered() && two.registered());
            assertArrayEquals(big, read(a, "/ann/big.bin"));
            assertEquals(java.util.List.of("big.bin", "empty", "placed0", "placed1", "placed2", "results"),
                    a.list("/ann").stream().map(Namespace.Named::name).toList());
            assertFalse(a.list("/ann").stream().anyMatch(n -> n.name().equals("old.bin")));

            byte[] edited = big.clone();
            System.arraycopy("edited".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, edited, 10, 6);
            Path local;
            try (LocalCopy copy = LocalCopy.out(a, "/ann/big.bin")) {
                local = copy.file();
                assertArrayEquals(big, Files.readAllBytes(local));
                try (var ch = java.nio.channels.FileChannel.open(local, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.write(java.nio.ByteBuffer.wrap(edited, 10, 6), 10); // a write in place, as tools make them
                }
                assertArrayEquals(big, read(a, "/ann/big.bin"), "nothing reaches the federation before checkIn");
                copy.checkIn();
            }
            assertArrayEquals(edited, read(a, "/ann/big.bin"));
            assertFalse(Files.exists(local), "the local copy goes when closed");
            try (LocalCopy fresh = LocalCopy.out(a, "/ann/new.txt")) {
                assertEquals(0, Files.size(fresh.file()), "a file not there yet starts empty");
                Files.writeString(fresh.file(), "new");
                fresh.checkIn();
            }
            assertEquals("new", new String(read(a, "/ann/new.txt"), java.nio.charset.StandardCharsets.UTF_8));
            a.remove("/ann", true);
            assertEquals(0, a.list("/").size());
        }
    }

    @Test
    void blocksStoredUnnamedAreDeletedByTheirWriterAlone() throws Exception {
        ThrowAwayCredentials keys = ThrowAwayCredentials.make();
        Tls serverTls = keys.tls(CredentialRole.SERVER, "fs");
        try (NameService names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", 0,
                serverTls));
             FileServer one = server(names, "disk1", serverTls);
             FsClient a = FsClient.connect("127.0.0.1:" + names.port(), keys.tls(CredentialRole.USER, "ann"), null);
             FsClient b = FsClient.connect("127.0.0.1:" + names.port(), keys.tls(CredentialRole.USER, "bob"), null)) {
            Await.until("the file server to register", WAIT, one::registered);
            a.mkdir("/ann", false);
            Entry named = a.write("/ann/named.bin", new ByteArrayInputStream(new byte[10]), 10,
                    FsClient.Progress.NONE);
            byte[] block = new byte[1000];
            FsClient.Opened[] unnamed = new FsClient.Opened[1];
            a.write("/ann/unnamed.bin", new FsClient.BlockSource() {
                private boolean given;

                @Override
                public byte[] next() {
                    byte[] b = given ? new byte[0] : block;
                    given = true;
                    return b;
                }

                @Override
                public boolean name() {
                    return false;
                }

                @Override
                public void unnamed(FsClient.Opened file) {
                    unnamed[0] = file;
                }
            }, -1, FsClient.Placement.SINGLE, FsClient.Progress.NONE);
            assertEquals(Code.ENOENT, assertThrows(FsException.class, () -> a.stat("/ann/unnamed.bin")).code());
            String blob = unnamed[0].entry().columns().get(0).blob();
            assertEquals(Code.EACCES, assertThrows(FsException.class, () -> b.deleteBlob(one.address(), blob)).code(),
                    "another user may not delete it");
            assertEquals(Code.EACCES, assertThrows(FsException.class,
                    () -> a.deleteBlob(one.address(), named.columns().get(0).blob())).code(),
                    "nor its writer a blob it left to be named");
            byte[][] back = new byte[1][];
            a.readBlocks(unnamed[0], 0, 1, (i, data, n) -> back[0] = java.util.Arrays.copyOf(data, n));
            assertArrayEquals(block, back[0], "what was stored unnamed reads back");
            a.discard(unnamed[0]);
            assertThrows(FsException.class, () -> a.readBlocks(unnamed[0], 0, 1, (i, data, n) -> { }),
                    "discarded: gone from its file server");
            assertArrayEquals(new byte[10], read(b, "/ann/named.bin"));
        }
    }

    /** An output that takes {@code limit} bytes and then fails, as a full disk does. */
    private static final class FailsAfter extends java.io.OutputStream {
        private long left;

        FailsAfter(long limit) {
            this.left = limit;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            if (len > left) {
                throw new java.io.IOException("disk full");
            }
            left -= len;
        }
    }

    private FileServer server(NameService names, String disk, Tls tls) throws Exception {
        Files.createDirectories(dir.resolve(disk));
        return FileServer.start(new FileServer.Config(dir.resolve(disk), "127.0.0.1", 0, null,
                "127.0.0.1:" + names.port(), tls, 0));
    }

    private static byte[] read(FsClient client, String path) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        client.read(path, out, FsClient.Progress.NONE);
        return out.toByteArray();
    }
}
