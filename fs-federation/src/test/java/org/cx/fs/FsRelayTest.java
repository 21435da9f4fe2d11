package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.cx.fs.FsException.Code;
import org.cx.security.CredentialRole;
import org.cx.security.FileGrant;
import org.cx.security.ThrowAwayCredentials;
import org.cx.security.Tls;
import org.cx.testing.Await;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer's relay, as task code without a network or a credential of its own uses it: it acts for whichever owner
 * the producer says runs now, on a task server's grant naming this producer, reaches only the federation's own
 * processes, and refuses everything when nobody runs.
 */
class FsRelayTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void aTaskActsAsItsOwnerAndReachesOnlyTheFederation() throws Exception {
        Random random = new Random(Seeds.seed("FsRelayTest"));
        ThrowAwayCredentials keys = ThrowAwayCredentials.make();
        Tls serverTls = keys.tls(CredentialRole.SERVER, "fs");
        Tls producer = keys.tls(CredentialRole.PRODUCER, "volunteer");
        Tls ann = keys.tls(CredentialRole.USER, "ann");
        byte[] bytes = new byte[2 * Blocks.SIZE + 99];
        random.nextBytes(bytes);
        Files.createDirectories(dir.resolve("disk"));
        AtomicReference<ActingFor> running = new AtomicReference<>(grant(serverTls, "ann", "volunteer"));
        try (NameService names = NameService.start(new NameService.Config(dir.resolve("names"), "127.0.0.1", 0,
                serverTls));
             FileServer disk = FileServer.start(new FileServer.Config(dir.resolve("disk"), "127.0.0.1", 0, null,
                     "127.0.0.1:" + names.port(), serverTls, 0));
             FsClient annHerself = FsClient.connect("127.0.0.1:" + names.port(), ann, null)) {
            Await.until("the file server to register", WAIT, disk::registered);
            annHerself.mkdir("/ann", false);
            String address = "127.0.0.1:" + names.port();
            try (FsRelay relay = FsRelay.start(dir.resolve("relay.sock"), address, producer, "volunteer",
                    running::get);
                 FsClient task = FsClient.viaRelay(address, relay.socket())) {
                assertEquals("ann", task.identity(), "the producer's credential acts for the task's owner");
                Entry written = task.write("/ann/out.bin", new ByteArrayInputStream(bytes), bytes.length,
                        FsClient.Progress.NONE);
                assertEquals("ann", written.owner());
                ByteArrayOutputStream back = new ByteArrayOutputStream();
                annHerself.read("/ann/out.bin", back, FsClient.Progress.NONE);
                assertArrayEquals(bytes, back.toByteArray());

                try (FsConnection raw = FsConnection.viaRelay(relay.socket(), address, 0)) {
                    FsException again = assertThrows(FsException.class, () -> raw.call(Json.op("hello")
                            .put("user", "bob")));
                    assertTrue(again.getMessage().contains("says hello once"), again.getMessage());
                    assertEquals("ann", raw.identity());
                }

                running.set(grant(serverTls, "bob", "volunteer"));
                try (FsClient bobsTask = FsClient.viaRelay(address, relay.socket())) {
                    FsException refused = assertThrows(FsException.class, () -> bobsTask.write("/ann/bob.bin",
                            new ByteArrayInputStream(new byte[1]), 1, FsClient.Progress.NONE));
                    assertEquals(Code.EACCES, refused.code(), refused.getMessage());
                }

                running.set(null);
                FsException nobody = assertThrows(FsException.class, () -> FsClient.viaRelay(address,
                        relay.socket()));
                assertTrue(nobody.getMessage().contains("no task runs"), nobody.getMessage());

                running.set(grant(serverTls, "ann", "volunteer"));
                FsException elsewhere = assertThrows(FsException.class, () -> FsClient.viaRelay("127.0.0.1:1",
                        relay.socket()));
                assertEquals(Code.EACCES, elsewhere.code());
                assertTrue(elsewhere.getMessage().contains("neither a name service nor a file server"),
                        elsewhere.getMessage());

                for (ActingFor forged : List.of(grant(serverTls, "ann", "another-producer"), grant(ann, "ann",
                        "volunteer"), ActingFor.plainly("ann"))) {
                    running.set(forged);
                    FsException refused = assertThrows(FsException.class, () -> FsClient.viaRelay(address,
                            relay.socket()));
                    assertEquals(Code.EACCES, refused.code(), refused.getMessage());
                    assertTrue(refused.getMessage().contains("may not act for ann"), refused.getMessage());
                }
            }
        }
    }

    /** {@code signer}'s grant that {@code producer} may act for {@code user}. */
    private static ActingFor grant(Tls signer, String user, String producer) {
        FileGrant grant = new FileGrant(user, producer, Instant.now().getEpochSecond());
        return new ActingFor(user, grant.text(), grant.sign(signer));
    }
}
