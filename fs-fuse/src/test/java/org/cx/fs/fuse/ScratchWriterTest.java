package org.cx.fs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.cx.fs.FileServer;
import org.cx.fs.FsClient;
import org.cx.fs.NameService;
import org.cx.testing.Await;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A file written through the mount, against a name service and a file server on loopback: writes a little out of
 * order still go as they are written, and whatever the order, holes, truncations and flushes, the file that appears
 * is what was written; each case both for a file that keeps what it sent in the scratch file and for one opened only
 * for writing, which reads what it sent back when a write goes below it.
 */
class ScratchWriterTest {
    private static final int PIECE = 64 << 10;

    @TempDir
    Path dir;

    private NameService names;
    private FileServer server;
    private FsClient client;
    private final Random random = new Random(Seeds.seed("ScratchWriterTest"));

    @BeforeEach
    void start() throws Exception {
        names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", 0, null));
        server = FileServer.start(new FileServer.Config(Files.createDirectories(dir.resolve("disk")), "127.0.0.1", 0,
                null, "127.0.0.1:" + names.port(), null, 0));
        client = FsClient.connect("127.0.0.1:" + names.port(), null, "ann");
        Await.until("the file server to register", Duration.ofSeconds(30), server::registered);
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
        names.close();
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static void write(ScratchWriter w, byte[] content, int from, int to) throws Exception {
        assertEquals(to - from, w.write(ByteBuffer.wrap(content, from, to - from).slice(), from));
    }

    private byte[] read(String path) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        client.read(path, out, FsClient.Progress.NONE);
        return out.toByteArray();
    }

    @ParameterizedTest(name = "keeps what it sent: {0}")
    @ValueSource(booleans = {true, false})
    void aSequentialWriteDeliveredSlightlyOutOfOrderStillGoesAsItIsWritten(boolean keepsSent) throws Exception {
        byte[] content = bytes(96 * PIECE + 1234);
        List<Integer> pieces = new ArrayList<>();
        for (int p = 0; p * PIECE < content.length; p++) {
            pieces.add(p);
        }
        for (int window = 0; window < pieces.size(); window += 8) { // as several threads would deliver them
            Collections.shuffle(pieces.subList(window, Math.min(pieces.size(), window + 8)), random);
        }
        ScratchWriter w = new ScratchWriter(client, dir, "/seq.bin", false, keepsSent);
        try {
            for (int p : pieces) {
                write(w, content, p * PIECE, Math.min(content.length, (p + 1) * PIECE));
            }
            assertTrue(w.streaming(), "no write touched what was sent");
            assertEquals(content.length, w.sent(), "every piece joined what was sent as it came");
            w.send();
        } finally {
            w.close();
        }
        assertArrayEquals(content, read("/seq.bin"));
    }

    @ParameterizedTest(name = "keeps what it sent: {0}")
    @ValueSource(booleans = {true, false})
    void aRewriteOfSentBytesSendsTheScratchFileWhole(boolean keepsSent) throws Exception {
        byte[] content = bytes(4 * PIECE);
        byte[] rewrite = bytes(100);
        ScratchWriter w = new ScratchWriter(client, dir, "/rewritten.bin", false, keepsSent);
        try {
            write(w, content, 0, 2 * PIECE);
            w.write(ByteBuffer.wrap(rewrite), 10);
            assertFalse(w.streaming());
            write(w, content, 2 * PIECE, 4 * PIECE);
            w.send();
        } finally {
            w.close();
        }
        System.arraycopy(rewrite, 0, content, 10, rewrite.length);
        assertArrayEquals(content, read("/rewritten.bin"));
        assertEquals(1, client.blobs(server.address()).size(), "what was sent before the rewrite is deleted");
    }

    @ParameterizedTest(name = "keeps what it sent: {0}")
    @ValueSource(booleans = {true, false})
    void holesGoAsZerosAndATruncationDropsWhatWasWrittenAheadBeyondIt(boolean keepsSent) throws Exception {
        byte[] content = bytes(10 * PIECE);
        ScratchWriter w = new ScratchWriter(client, dir, "/holes.bin", false, keepsSent);
        try {
            write(w, content, 0, PIECE);
            write(w, content, 3 * PIECE, 5 * PIECE); // a hole before it, never written
            write(w, content, 8 * PIECE, 10 * PIECE); // cut off below
            w.truncate(9 * PIECE);
            assertTrue(w.streaming());
            assertEquals(PIECE, w.sent());
            w.send();
        } finally {
            w.close();
        }
        byte[] expected = new byte[9 * PIECE];
        System.arraycopy(content, 0, expected, 0, PIECE);
        System.arraycopy(content, 3 * PIECE, expected, 3 * PIECE, 2 * PIECE);
        System.arraycopy(content, 8 * PIECE, expected, 8 * PIECE, PIECE);
        assertArrayEquals(expected, read("/holes.bin"));
    }

    @ParameterizedTest(name = "keeps what it sent: {0}")
    @ValueSource(booleans = {true, false})
    void aTruncationBelowWhatWasSentKeepsTheBytesBeforeIt(boolean keepsSent) throws Exception {
        byte[] content = bytes(20 * PIECE + 99); // more than one block
        ScratchWriter w = new ScratchWriter(client, dir, "/cut.bin", false, keepsSent);
        try {
            write(w, content, 0, content.length);
            w.truncate(17 * PIECE + 7);
            assertEquals(17 * PIECE + 7, w.size());
            w.send();
        } finally {
            w.close();
        }
        assertArrayEquals(java.util.Arrays.copyOf(content, 17 * PIECE + 7), read("/cut.bin"));
    }

    @ParameterizedTest(name = "keeps what it sent: {0}")
    @ValueSource(booleans = {true, false})
    void writesAfterAFlushGoOnFromTheFileItNamed(boolean keepsSent) throws Exception {
        byte[] content = bytes(24 * PIECE);
        byte[] patch = bytes(300);
        ScratchWriter w = new ScratchWriter(client, dir, "/flushed.bin", false, keepsSent);
        try {
            write(w, content, 0, 18 * PIECE);
            w.send(); // a flush: one of the file's descriptors closed
            assertArrayEquals(java.util.Arrays.copyOf(content, 18 * PIECE), read("/flushed.bin"));
            write(w, content, 18 * PIECE, content.length);
            w.write(ByteBuffer.wrap(patch), 1000);
            w.send();
        } finally {
            w.close();
        }
        System.arraycopy(patch, 0, content, 1000, patch.length);
        assertArrayEquals(content, read("/flushed.bin"));
    }

    @org.junit.jupiter.api.Test
    void aFileOpenedOnlyForWritingDoesNotCopyWhatItSendsInOrder() throws Exception {
        byte[] content = bytes(40 * PIECE + 5);
        ScratchWriter w = new ScratchWriter(client, dir, "/alone.bin", false, false);
        try {
            write(w, content, 0, content.length);
            assertEquals(content.length, w.sent());
            assertEquals(content.length, w.size());
            assertEquals(0, Files.size(w.scratch), "the scratch file holds nothing sent in order");
            w.send();
        } finally {
            w.close();
        }
        assertArrayEquals(content, read("/alone.bin"));
    }
}
