package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodecs;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

class BundleFetcherTest {

    private final BundleFetcher fetcher = new BundleFetcher(new BodyCodecs(getClass().getClassLoader()), "p1");

    private static byte[] jar() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            jar.putNextEntry(new ZipEntry("app/Hello.txt"));
            jar.write("hello".getBytes());
            jar.closeEntry();
        }
        return bytes.toByteArray();
    }

    private static ReadyTask task(long computation) {
        return new ReadyTask(new TaskEnvelope(TaskId.root(computation), Continuation.CONSUMER, 0, 0, false,
                new byte[0]), new byte[0][]);
    }

    @Test
    void classPathCodeIsBoundAtOnceAndItsTasksRun() {
        assertEquals(List.of(), fetcher.code(1, CodeBundle.CLASS_PATH));
        assertFalse(fetcher.park(task(1)));
        assertEquals(0, fetcher.fetches());
    }

    @Test
    void aBundleIsFetchedOnceForEveryComputationWaitingAndItsTasksRunWhenItArrives() throws IOException {
        byte[] bytes = jar();
        CodeBundle bundle = CodeBundle.of(bytes);
        assertEquals(List.of(new Message.FetchBundle(bundle.hash())), fetcher.code(1, bundle.hash()),
                "the first computation asks for it");
        assertEquals(List.of(), fetcher.code(2, bundle.hash()), "the second waits for the same fetch");
        assertEquals(1, fetcher.fetches());
        assertTrue(fetcher.park(task(1)));
        assertTrue(fetcher.park(task(2)));
        assertFalse(fetcher.park(task(3)), "a computation without a bundle on the way runs");
        assertEquals(2, fetcher.parkedCount());

        int half = bytes.length / 2;
        byte[] first = java.util.Arrays.copyOfRange(bytes, 0, half);
        byte[] second = java.util.Arrays.copyOfRange(bytes, half, bytes.length);
        assertNull(fetcher.chunk(new Message.BundleChunk(bundle.hash(), 0, bytes.length, first)));
        BundleFetcher.Assembled all = fetcher.chunk(new Message.BundleChunk(bundle.hash(), half, bytes.length, second));
        assertNotNull(all);
        List<ReadyTask> ready = fetcher.arrived(CodeBundle.verified(bundle.hash(), all.bytes(), all.signed()));
        assertEquals(2, ready.size());
        assertEquals(0, fetcher.parkedCount());
        assertEquals(List.of(), fetcher.code(4, bundle.hash()), "held now: bound at once");
    }

    @Test
    void aComputationWithSharedDataRunsOnceItsCodeAndItsDataAreBothHere() throws IOException {
        CodeBundle code = CodeBundle.of(jar());
        java.util.TreeMap<String, byte[]> entries = new java.util.TreeMap<>();
        entries.put("table", new byte[] {4, 5, 6});
        CodeBundle data = CodeBundle.ofEntries(entries);
        assertEquals(List.of(new Message.FetchBundle(code.hash()), new Message.FetchBundle(data.hash())),
                fetcher.code(1, org.cx.wire.Sources.of(code.hash(), data.hash())));
        assertTrue(fetcher.park(task(1)));
        assertEquals(List.of(), fetcher.arrived(data), "the code is not here yet");
        assertEquals(1, fetcher.arrived(code).size(), "both are here: its task runs");
        assertEquals(List.of(), fetcher.code(2, org.cx.wire.Sources.of(code.hash(), data.hash())),
                "another computation from the same code and data: bound at once");
    }

    @Test
    void aBundleThatCannotBeHadFailsEveryTaskWaitingForItSayingWhy() {
        assertEquals(1, fetcher.code(1, "ab".repeat(32)).size());
        fetcher.park(task(1));
        List<Message.TaskFailed> failed = fetcher.unavailable("ab".repeat(32), "no server has it");
        assertEquals(1, failed.size());
        assertTrue(failed.get(0).reason().contains("producer p1 cannot load the code of task"), failed.get(0).reason());
        assertTrue(failed.get(0).reason().endsWith("no server has it"));
        assertEquals(0, fetcher.parkedCount());
        assertEquals(List.of(), fetcher.unavailable("ab".repeat(32), "again"), "told once");
    }

    @Test
    void chunksThatDoNotFitAreRefusedAndAChunkNobodyWaitsForIsIgnored() {
        String hash = "cd".repeat(32);
        assertNull(fetcher.chunk(new Message.BundleChunk(hash, 0, 4, new byte[4])), "nobody waits for it");
        fetcher.code(1, hash);
        assertThrows(CodeBundle.InvalidBundleException.class,
                () -> fetcher.chunk(new Message.BundleChunk(hash, 8, 4, new byte[4])));
    }

    @Test
    void losingTheConnectionForgetsEverythingOnTheWay() {
        fetcher.code(1, "ef".repeat(32));
        fetcher.park(task(1));
        fetcher.clear();
        assertEquals(0, fetcher.parkedCount());
        assertFalse(fetcher.park(task(1)));
    }
}
