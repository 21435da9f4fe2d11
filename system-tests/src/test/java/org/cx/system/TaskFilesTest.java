package org.cx.system;

import static org.cx.system.FsProcesses.awaitServers;
import static org.cx.system.FsProcesses.client;
import static org.cx.system.FsProcesses.fs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.consumer.Consumer;
import org.cx.examples.sw.Fasta;
import org.cx.examples.sw.Hit;
import org.cx.examples.sw.Search;
import org.cx.examples.sw.SmithWaterman;
import org.cx.examples.sw.SwData;
import org.cx.fs.FsClient;
import org.cx.harness.LocalCluster;
import org.cx.producer.Producer;
import org.cx.producer.TaskBox;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.server.ServerConfig;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks reading and writing the federated file service through {@link TaskContext#files()}: a name service and a
 * file server as processes, a producer whose tasks run in sandboxed worker processes (no network, no credential),
 * and the Smith-Waterman example scoring queries against a database stored in the federation.
 */
class TaskFilesTest {
    @TempDir
    Path dir;

    private FsProcesses services;

    @AfterEach
    void stop() throws InterruptedException {
        if (services != null) {
            services.killAll();
        }
    }

    /** Writes {@code text} to {@code path} in the federation; its value is the file's owner there. */
    static final class WriteFile extends Task {
        private final String path;
        private final String text;

        WriteFile(String path, String text) {
            this.path = path;
            this.text = text;
        }

        @Override
        public void execute(TaskContext context) {
            try {
                Path file = context.files().getPath(path);
                Files.writeString(file, text);
                context.sendResult(Files.getOwner(file).getName());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void sandboxedTasksScoreADatabaseInTheFederationAndWriteAsTheirOwner() throws Exception {
        SwData.Made made = SwData.write(dir.resolve("data"), 4, 120, 80, 3, Seeds.seed("TaskFilesTest"));
        services = new FsProcesses(dir);
        String names = services.names(0);
        services.fileServer(names, "disk");
        String me;
        try (FsClient fs = client(names)) {
            awaitServers(fs, 1);
            me = fs.identity();
            fs.mkdir("/sw", false);
            Cli.Run cp = fs(names, "cp", "-r", made.database().toString(), "cx:/sw/");
            assertEquals(0, cp.exit(), cp.err());
        }
        try (FsClient other = FsClient.connect(names, CxHome.local(CredentialRole.USER, "someone-else", true),
                null)) {
            other.mkdir("/elsewhere", false);
        }

        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("sw"), 1, 0, 1, true);
             Consumer consumer = cluster.consumer()) {
            Producer producer = cluster.addProducer(0, 2, c -> c.withFileService(names).withBox(TaskBox.defaults()));
            System.out.println("task code runs " + producer.isolation());

            Hit[] hits = consumer.<Hit[]>submit(new Search(made.queryList(), "cx:/sw/db", 3)).result()
                    .get(120, TimeUnit.SECONDS);
            assertEquals(3 * 3, hits.length);
            for (Fasta.Sequence q : made.queryList()) {
                Hit best = java.util.Arrays.stream(hits).filter(h -> h.query().equals(q.name())).findFirst()
                        .orElseThrow();
                byte[] encoded = SmithWaterman.encode(q.residues());
                assertEquals("planted-" + q.name(), best.target());
                assertEquals(SmithWaterman.score(encoded, encoded), best.score());
            }

            assertEquals(me, consumer.<String>submit(new WriteFile("/sw/note.txt", "scored")).result()
                    .get(60, TimeUnit.SECONDS), "a task writes as its computation's owner");
            try (FsClient fs = client(names)) {
                assertEquals(me, fs.stat("/sw/note.txt").owner());
                java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
                fs.read("/sw/note.txt", written, FsClient.Progress.NONE);
                assertEquals("scored", written.toString(StandardCharsets.UTF_8));
            }
            ExecutionException refused = assertThrows(ExecutionException.class, () -> consumer.<String>submit(
                    new WriteFile("/elsewhere/note.txt", "no")).result().get(60, TimeUnit.SECONDS));
            assertTrue(refused.getCause().getMessage().contains("may not"), refused.getCause().getMessage());
        }
    }
}
