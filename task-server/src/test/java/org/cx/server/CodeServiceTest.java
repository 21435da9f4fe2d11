package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.junit.jupiter.api.Test;

class CodeServiceTest {

    private static byte[] jar() throws IOException {
        return jar("app/Data.txt");
    }

    private static byte[] jar(String entry) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(bytes)) {
            out.putNextEntry(new ZipEntry(entry));
            out.write(new byte[] {1, 2, 3});
            out.closeEntry();
        }
        return bytes.toByteArray();
    }

    /** A root server's code service (nothing upstream) on {@code clock}. */
    private CodeService codeService(java.util.function.LongSupplier clock) {
        return codeService(new BodyCodecs(getClass().getClassLoader()), clock);
    }

    private CodeService codeService(BodyCodecs codecs, java.util.function.LongSupplier clock) {
        return new CodeService(codecs, new CodeService.Upstream() {
            @Override
            public int upstream() {
                return -1;
            }

            @Override
            public void send(int server, Message message) {
            }
        }, "test", null, clock);
    }

    @Test
    void anUploadNoSubmissionUsesIsUnloadedAfterAMinuteAndItsBytesKeptWithinTheBound() throws IOException {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        CodeBundle bundle = CodeBundle.of(jar());
        BodyCodecs codecs = new BodyCodecs(getClass().getClassLoader(), bundle.size() * 3L / 2);
        CodeService code = codeService(codecs, now::get);
        for (Message.BundleChunk chunk : BundleAssembly.chunks(bundle)) {
            code.upload(chunk, "alice");
        }
        assertEquals(1, codecs.bundleCount(), "loaded for the submission that follows");
        code.expireUploads(now.addAndGet(CodeService.UPLOAD_WAIT_NANOS / 2));
        assertEquals(1, codecs.bundleCount(), "not yet");
        code.expireUploads(now.addAndGet(CodeService.UPLOAD_WAIT_NANOS));
        assertEquals(0, codecs.bundleCount(), "nobody submitted: unloaded");
        assertTrue(code.has(bundle.hash()), "its bytes are kept, within the bound");

        CodeBundle other = CodeBundle.of(jar("app/Date.txt"));
        codecs.add(other);
        codecs.unloadIfUnused(other.hash());
        assertTrue(code.has(other.hash()), "the newest unused bundle is kept");
        assertFalse(code.has(bundle.hash()), "the older one made room for it");

        assertTrue(codecs.bind(7, other.hash()), "a kept bundle binds without being sent again");
        assertEquals(1, codecs.bundleCount());
        assertEquals(0, codecs.unusedCount());
    }

    @Test
    void oneUserCannotTakeEveryUploadByteOfAServer() {
        CodeService code = codeService(() -> 0L);
        int total = 200 << 20; // announced by each upload's first chunk; the rest never comes
        for (int i = 0; i < 3; i++) {
            code.upload(new Message.BundleChunk(Integer.toString(i).repeat(64), 0, total, new byte[16]), "alice");
        }
        code.upload(new Message.BundleChunk("b".repeat(64), 0, total, new byte[16]), "bob");
        assertNull(code.takeRejection("0".repeat(64)));
        assertNull(code.takeRejection("1".repeat(64)));
        String third = code.takeRejection("2".repeat(64));
        assertTrue(third != null && third.contains("user alice's uploads"), third);
        assertNull(code.takeRejection("b".repeat(64)), "another user's upload still fits");
    }
}
