package org.cx.system;

import static org.cx.system.Cli.cx;
import static org.cx.system.FsProcesses.awaitServers;
import static org.cx.system.FsProcesses.client;
import static org.cx.system.FsProcesses.fs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The federated file service as real processes: a name service ({@code cx fs names}) and file servers
 * ({@code cx fs serve}), used through {@code cx fs} commands and the client library, and killed at the worst times.
 */
class FileServiceTest {
    private static final Duration WAIT = FsProcesses.WAIT;

    @TempDir
    Path dir;

    private FsProcesses services;

    @BeforeEach
    void services() {
        services = new FsProcesses(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        services.killAll();
    }

    private ChildProcess start(String name, String... args) throws IOException {
        return services.start(name, args);
    }

    private String names(int port) throws IOException {
        return services.names(port);
    }

    private ChildProcess fileServer(String names, String disk, String... more) throws IOException {
        return services.fileServer(names, disk, more);
    }

    @Test
    void theCommandsWorkAndTheNamespaceSurvivesKillNine() throws Exception {
        Random random = new Random(Seeds.seed("FileServiceTest"));
        byte[] bytes = new byte[5 * (1 << 20) + 77];
        random.nextBytes(bytes);
        Path local = Files.write(dir.resolve("local.bin"), bytes);
        String names = names(0);
        fileServer(names, "disk1");
        fileServer(names, "disk2");
        try (FsClient fs = client(names)) {
            awaitServers(fs, 2);
        }

        assertEquals(0, fs(names, "mkdir", "-p", "cx:/data/in").exit());
        Cli.Run cp = fs(names, "cp", local.toString(), "cx:/data/in/");
        assertEquals(0, cp.exit(), cp.err());
        Cli.Run ls = fs(names, "ls", "-l", "-R", "cx:/data");
        assertTrue(ls.out().contains(bytes.length + " ") && ls.out().contains("local.bin"), ls.out());
        assertEquals(0, fs(names, "mv", "cx:/data/in/local.bin", "cx:/data/kept.bin").exit());
        Cli.Run back = fs(names, "cp", "cx:/data/kept.bin", dir.resolve("back.bin").toString());
        assertEquals(0, back.exit(), back.err());
        assertArrayEquals(bytes, Files.readAllBytes(dir.resolve("back.bin")));
        Cli.Run fsck = fs(names, "fsck");
        assertEquals(0, fsck.exit(), fsck.out());
        assertTrue(fsck.out().contains("1 file, 5.0 MiB checked: all well"), fsck.out());
        assertTrue(fsck.out().contains("orphans not checked"), "a user may not list a file server's blobs");

        Path stray = Files.createDirectories(dir.resolve("disk1/.cx-fs/blobs/ee")).resolve("ee" + "0".repeat(30));
        Files.write(stray, new byte[100]); // as a transfer cut short after its rename would leave it
        Files.setLastModifiedTime(stray, java.nio.file.attribute.FileTime.from(java.time.Instant.now()
                .minus(Duration.ofHours(2))));
        CxHome.local(CredentialRole.ADMIN, "fsck", true);
        String admin = CxHome.credentialDir(CredentialRole.ADMIN).resolveSibling("admin-fsck").toString();
        Cli.Run orphans = fs(names, "fsck", "--credentials", admin);
        assertEquals(1, orphans.exit(), orphans.out() + orphans.err());
        assertTrue(orphans.out().contains(": 1 orphan blobs (100 B), 1 older than 1h"), orphans.out());
        Cli.Run cleaned = fs(names, "fsck", "--repair", "--credentials", admin);
        assertEquals(0, cleaned.exit(), cleaned.out() + cleaned.err());
        assertFalse(Files.exists(stray), "fsck --repair deletes an old orphan");

        Cli.Run missing = fs(names, "cp", "cx:/data/nothing", dir.resolve("x").toString());
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("/data/nothing does not exist"), missing.err());

        ChildProcess first = services.started().get(0);
        first.kill(); // kill -9: only what the journal forced to disk is left
        int port = Integer.parseInt(names.substring(names.lastIndexOf(':') + 1));
        names(port);
        try (FsClient fs = client(names)) {
            awaitServers(fs, 2);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            fs.read("/data/kept.bin", out, FsClient.Progress.NONE);
            assertArrayEquals(bytes, out.toByteArray());
            assertEquals(List.of("in", "kept.bin"), fs.list("/data").stream().map(n -> n.name()).toList());
        }
        assertEquals(0, fs(names, "rm", "-r", "cx:/data").exit());
        assertEquals("", fs(names, "ls", "cx:/").out());
    }

    @Test
    void aFileServerKilledMidWriteLeavesNoPartialFileAndTheWriterIsTold() throws Exception {
        String names = names(0);
        ChildProcess slow = fileServer(names, "slow", "--throttle", "4M");
        try (FsClient fs = client(names)) {
            awaitServers(fs, 1);
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    fs.write("/half.bin", new ByteArrayInputStream(new byte[64 << 20]), 64 << 20,
                            FsClient.Progress.NONE);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Path incoming = dir.resolve("slow/.cx-fs/incoming");
            FsProcesses.awaitPartFile(incoming);
            slow.kill();
            ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> write.get(60, TimeUnit.SECONDS));
            String message = failed.getCause().getMessage();
            assertTrue(message.contains("writing /half.bin to file server fs-") && message.contains("failed")
                    && message.contains("/half.bin is as it was"), message);
            FsException gone = org.junit.jupiter.api.Assertions.assertThrows(FsException.class,
                    () -> fs.stat("/half.bin"));
            assertEquals(FsException.Code.ENOENT, gone.code());
        }
        fileServer(names, "slow"); // on restart, the part file of the cut transfer is removed
        try (var left = Files.list(dir.resolve("slow/.cx-fs/incoming"))) {
            assertFalse(left.findAny().isPresent(), "no partial file left");
        }
    }

    @Test
    void nothingOutsideAFileServersRootCanBeLinkedIn() throws Exception {
        String names = names(0);
        ChildProcess server = fileServer(names, "disk");
        String id = server.awaitLine("exporting", WAIT).replaceAll(".*file server (\\S+) exporting.*", "$1");
        Files.writeString(dir.resolve("secret.txt"), "outside the root");
        Files.writeString(dir.resolve("disk/inside.txt"), "inside the root");
        Files.createSymbolicLink(dir.resolve("disk/escape"), dir.resolve("secret.txt"));
        try (FsClient fs = client(names)) {
            awaitServers(fs, 1);
        }
        for (String hostPath : List.of("../secret.txt", "escape", dir.resolve("secret.txt").toString(),
                ".cx-fs/id", "sub/../../secret.txt")) {
            Cli.Run ln = fs(names, "ln", "--server", id, hostPath, "cx:/stolen");
            assertEquals(1, ln.exit(), hostPath + ": " + ln.out());
            assertTrue(ln.err().contains("root") || ln.err().contains("not a file the file server exports"),
                    hostPath + ": " + ln.err());
        }
        Cli.Run ln = fs(names, "ln", "--server", id, "inside.txt", "cx:/inside.txt");
        assertEquals(0, ln.exit(), ln.err());
        Cli.Run get = fs(names, "get", "/inside.txt", dir.resolve("got.txt").toString());
        assertEquals(0, get.exit(), get.err());
        assertEquals("inside the root", Files.readString(dir.resolve("got.txt")));
    }

    @Test
    void aReplicatedFileIsReadWhileAServerIsDownAndFsckMakesTheReplicaAgain() throws Exception {
        Random random = new Random(Seeds.seed("FileServiceTest.replicas"));
        byte[] bytes = new byte[9 * (1 << 20) + 5];
        random.nextBytes(bytes);
        Path local = Files.write(dir.resolve("local.bin"), bytes);
        String names = names(0);
        List<ChildProcess> servers = new ArrayList<>();
        for (String disk : List.of("a", "b", "c")) {
            servers.add(fileServer(names, disk));
        }
        try (FsClient fs = client(names)) {
            awaitServers(fs, 3);
        }
        Cli.Run striped = fs(names, "cp", "--stripes", "3", "--stripe-size", "1M", local.toString(), "cx:/striped");
        assertEquals(0, striped.exit(), striped.err());
        Cli.Run copied = fs(names, "cp", "--replicas", "2", local.toString(), "cx:/replicated");
        assertEquals(0, copied.exit(), copied.err());
        try (FsClient fs = client(names)) {
            assertArrayEquals(bytes, read(fs, "/striped"));
            org.cx.fs.Entry e = fs.stat("/replicated");
            assertEquals(2, e.columns().get(0).servers().size());
            String doomed = e.columns().get(0).servers().get(0);
            ChildProcess victim = servers.stream().filter(p -> p.output().stream().anyMatch(l -> l.contains(
                    "file server " + doomed + " exporting"))).findFirst().orElseThrow();
            victim.kill();
            assertArrayEquals(bytes, read(fs, "/replicated"), "read from the replica left");
        }
        Cli.Run fsck = fs(names, "fsck");
        assertEquals(1, fsck.exit(), fsck.out());
        assertTrue(fsck.out().contains("cx:/replicated: "), fsck.out());
        Cli.Run repair = fs(names, "fsck", "--repair", "/replicated");
        assertTrue(repair.out().contains("repaired, now on"), repair.out());
        try (FsClient fs = client(names)) {
            Await.until("the dead server to be taken as down", WAIT, () -> {
                try {
                    return fs.servers().stream().filter(FsClient.ServerInfo::alive).count() == 2;
                } catch (FsException e) {
                    return false;
                }
            });
            Cli.Run again = fs(names, "fsck", "/replicated");
            assertEquals(0, again.exit(), again.out());
            assertArrayEquals(bytes, read(fs, "/replicated"));
        }
    }

    private static byte[] read(FsClient fs, String path) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        fs.read(path, out, FsClient.Progress.NONE);
        return out.toByteArray();
    }

    @Test
    void theNameServiceIsFoundThroughTheLookupService() throws Exception {
        try (org.cx.discovery.LookupService lookupService = org.cx.discovery.LookupService.start("127.0.0.1", 0)) {
            String lookup = "127.0.0.1:" + lookupService.port();
            start("names", "names", "--data", dir.resolve("names").toString(), "--port", "0", "--lookup", lookup)
                    .awaitLine("registered with the lookup service", WAIT);
            start("disk", "serve", "--root", Files.createDirectories(dir.resolve("disk")).toString(), "--lookup",
                    lookup).awaitLine("exporting", WAIT);
            Await.until("the file server to be up", WAIT, () -> cx("fs", "df", "--lookup", lookup).out()
                    .contains(" up"));
            Path local = Files.writeString(dir.resolve("note.txt"), "found through River");
            Cli.Run cp = cx("fs", "cp", "--lookup", lookup, local.toString(), "cx:/note.txt");
            assertEquals(0, cp.exit(), cp.err());
            Cli.Run get = cx("fs", "get", "--lookup", lookup, "/note.txt", dir.resolve("back.txt").toString());
            assertEquals(0, get.exit(), get.err());
            assertEquals("found through River", Files.readString(dir.resolve("back.txt")));
        }
    }

    @Test
    void aFullDiskIsAClearErrorAndTheNamespaceStaysAsItWas() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        String why = new String(mount.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor() == 0,
                "aFullDiskIsAClearError skipped: cannot mount a small tmpfs here (" + why.trim() + ")");
        try {
            String names = names(0);
            fileServer(names, "small");
            try (FsClient fs = client(names)) {
                awaitServers(fs, 1);
                Path local = Files.write(dir.resolve("eight.bin"), new byte[8 << 20]);
                Cli.Run cp = fs(names, "cp", local.toString(), "cx:/eight.bin");
                assertEquals(1, cp.exit(), cp.out());
                assertTrue(cp.err().contains("free"), cp.err()); // the name service knew the space was short

                FsException full = org.junit.jupiter.api.Assertions.assertThrows(FsException.class,
                        () -> fs.write("/unknown-size.bin", Files.newInputStream(local), -1, FsClient.Progress.NONE));
                assertEquals(FsException.Code.ENOSPC, full.code(), full.getMessage());
                assertTrue(full.getMessage().contains("no space left on its disk"), full.getMessage());
                assertEquals(List.of(), fs.list("/"), "the namespace is as it was");
                try (var parts = Files.list(small.resolve(".cx-fs/incoming"))) {
                    assertEquals(0, parts.count(), "nothing of the failed write is left");
                }
            }
        } finally {
            services.killAll(); // the file server holds the mount busy
            new ProcessBuilder("umount", small.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void whenThePrimaryNameServiceIsKilledTheStandbyTakesOverWithEverythingAcknowledged() throws Exception {
        String primary = names(0);
        ChildProcess first = services.started().get(0);
        ChildProcess standby = start("standby", "names", "--data", dir.resolve("standby").toString(), "--port", "0",
                "--follow", primary);
        String second = standby.awaitLine("listening on", WAIT).replaceAll(".*listening on (\\S+?),.*", "$1");
        standby.awaitLine("follows " + primary, WAIT);
        String both = primary + "," + second;
        fileServer(both, "disk1");
        fileServer(both, "disk2");
        List<String> written = new ArrayList<>();
        try (FsClient fs = client(both)) {
            awaitServers(fs, 2);
            fs.mkdir("/kept", false);
            for (int i = 0; i < 20; i++) {
                fs.write("/kept/f" + i, new ByteArrayInputStream(("file " + i).getBytes(
                        java.nio.charset.StandardCharsets.UTF_8)), -1, FsClient.Progress.NONE);
                written.add("f" + i);
            }
            first.kill(); // kill -9 of the primary
            standby.awaitLine("took over from " + primary, WAIT);
            assertEquals(written.size(), fs.list("/kept").size(), "every acknowledged file is on the standby");
            assertEquals("file 7", new String(read(fs, "/kept/f7"), java.nio.charset.StandardCharsets.UTF_8));
            fs.write("/kept/after", new ByteArrayInputStream(new byte[10]), -1, FsClient.Progress.NONE);
        }
        Cli.Run ls = fs(both, "ls", "cx:/kept");
        assertEquals(0, ls.exit(), ls.err());
        assertTrue(ls.out().contains("after") && ls.out().contains("f19"), ls.out());

        // The old primary, restarted on its data, hears of the newer epoch and answers nothing more.
        int port = Integer.parseInt(primary.substring(primary.lastIndexOf(':') + 1));
        ChildProcess again = start("names-again", "names", "--data", dir.resolve("names").toString(), "--port",
                Integer.toString(port));
        again.awaitLine("listening on", WAIT);
        again.awaitLine("superseded", WAIT);
        Cli.Run after = fs(both, "ls", "cx:/kept");
        assertTrue(after.out().contains("after"), after.out() + after.err());
    }
}
