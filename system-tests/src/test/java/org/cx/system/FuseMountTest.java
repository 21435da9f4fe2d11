package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cx.cli.Cx;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified programs ({@code sh}, {@code cat}, {@code grep}, {@code python3}, {@code cp}, {@code mv}) on a FUSE
 * mount of the federation ({@code cx fs mount}), with a name service and a file server as processes; the mount ends
 * when its directory is unmounted from outside, and a program writing through it when its file server is killed is
 * told so and leaves nothing named. Skipped, saying why, where the machine has no {@code /dev/fuse} or no libfuse3.
 */
class FuseMountTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ChildProcess> processes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ChildProcess p : processes.reversed()) {
            if (p.isAlive()) {
                p.terminate();
            }
        }
        for (ChildProcess p : processes) {
            Await.until("a cx fs process to stop", WAIT, () -> !p.isAlive());
        }
    }

    private ChildProcess start(String name, String... args) throws IOException {
        ChildProcess p = ChildProcess.start(name, Cx.class.getName(), args);
        processes.add(p);
        return p;
    }

    private static int sh(Path cwd, String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", script).directory(cwd.toFile()).inheritIO().start();
        return p.waitFor();
    }

    private static void assumeFuse() {
        assumeTrue(Files.exists(Path.of("/dev/fuse")), "FuseMountTest skipped: this machine has no /dev/fuse");
        assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libfuse3.so.3"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libfuse3.so.3")),
                "FuseMountTest skipped: libfuse3 is not installed (Debian: apt install fuse3)");
    }

    /** A name service and a file server (with {@code serve}'s further options); the name service's address. */
    private String federation(String... serve) throws IOException {
        String names = start("names", "fs", "names", "--data", dir.resolve("names").toString(), "--port", "0")
                .awaitLine("listening on", WAIT).replaceAll(".*listening on (\\S+?),.*", "$1");
        List<String> args = new ArrayList<>(List.of("fs", "serve", "--root",
                Files.createDirectories(dir.resolve("disk")).toString(), "--names", names));
        args.addAll(List.of(serve));
        start("disk", args.toArray(String[]::new)).awaitLine("exporting", WAIT);
        return names;
    }

    private static FsClient client(String names) throws IOException {
        FsClient fs = FsProcesses.client(names);
        FsProcesses.awaitServers(fs, 1);
        return fs;
    }

    private Path mount(String names) throws IOException {
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        start("mount", "fs", "mount", "--names", names, mnt.toString()).awaitLine("mounted the federation", WAIT);
        return mnt;
    }

    @Test
    void unmodifiedProgramsReadAndWriteFederatedFiles() throws Exception {
        assumeFuse();
        String names = federation();
        try (FsClient fs = client(names)) {
            fs.mkdir("/given", false);
            fs.write("/given/words.txt", new java.io.ByteArrayInputStream("alpha\nbeta\ngamma\n"
                    .getBytes(StandardCharsets.UTF_8)), -1, FsClient.Progress.NONE);

            Path mnt = mount(names);
            ChildProcess mount = processes.getLast();
            byte[] big = new byte[3 * (1 << 20) + 17];
            new java.util.Random(7).nextBytes(big);
            Files.write(dir.resolve("big.bin"), big);

            assertEquals(0, sh(mnt, "grep -q beta given/words.txt"));
            assertEquals(0, sh(mnt, "test \"$(stat -c %o given/words.txt)\" = 1048576"),
                    "the block size programs size their reads by: the mount reaches past jfuse's API");
            fs.write("/given/v.txt", new java.io.ByteArrayInputStream("one\n".getBytes(StandardCharsets.UTF_8)), -1,
                    FsClient.Progress.NONE);
            assertEquals(0, sh(mnt, "grep -q one given/v.txt && grep -q one given/v.txt"), "read, then from the cache");
            fs.write("/given/v.txt", new java.io.ByteArrayInputStream("two\n".getBytes(StandardCharsets.UTF_8)), -1,
                    FsClient.Progress.NONE);
            assertEquals(0, sh(mnt, "grep -q two given/v.txt"), "a file replaced by another client is read anew");
            assertEquals(0, sh(mnt, "echo written by sh > given/sh.txt && cat given/sh.txt | grep -q 'written by'"));
            assertEquals(0, sh(mnt, "python3 -c \"open('given/py.txt','w').write('x' * 100000)\""));
            assertEquals(0, sh(mnt, "cp " + dir.resolve("big.bin") + " given/big.bin && mkdir moved && "
                    + "mv given/big.bin moved/ && cmp " + dir.resolve("big.bin") + " moved/big.bin"));
            assertEquals(0, sh(mnt, "python3 -c \"f = open('given/seek.txt', 'w'); f.write('a' * 10); f.seek(0); "
                    + "f.write('b' * 5); f.close()\""), "a write out of order: the file goes whole on close");
            assertEquals(0, sh(mnt, "python3 -c \"f = open('given/patched.bin', 'wb'); f.write(bytes(range(256)) * "
                    + "12289); f.seek(100); f.write(b'HEADER'); f.close()\""),
                    "a header patched after 3 MiB went out: what was sent is read back, and the file goes whole");
            assertEquals(0, sh(mnt, "dd if=" + dir.resolve("big.bin") + " of=given/dd.bin bs=4M status=none && cmp "
                    + dir.resolve("big.bin") + " given/dd.bin"), "writes larger than a request, in pieces at once");
            assertEquals(0, sh(mnt, "echo delta >> given/words.txt"));
            assertEquals(0, sh(mnt, "rm given/py.txt"));
            assertTrue(sh(mnt, "cat given/nothing 2>/dev/null") != 0, "a missing file is an error, as on any disk");

            assertEquals("written by sh\n", read(fs, "/given/sh.txt"));
            assertEquals("bbbbbaaaaa", read(fs, "/given/seek.txt"));
            byte[] patched = new byte[256 * 12289];
            for (int i = 0; i < patched.length; i++) {
                patched[i] = (byte) i;
            }
            System.arraycopy("HEADER".getBytes(StandardCharsets.US_ASCII), 0, patched, 100, 6);
            ByteArrayOutputStream patchedOut = new ByteArrayOutputStream();
            fs.read("/given/patched.bin", patchedOut, FsClient.Progress.NONE);
            assertArrayEquals(patched, patchedOut.toByteArray());
            assertEquals("alpha\nbeta\ngamma\ndelta\n", read(fs, "/given/words.txt"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            fs.read("/moved/big.bin", out, FsClient.Progress.NONE);
            assertArrayEquals(big, out.toByteArray());
            assertEquals(List.of("dd.bin", "patched.bin", "seek.txt", "sh.txt", "v.txt", "words.txt"),
                    fs.list("/given").stream().map(n -> n.name()).toList());

            assertEquals(0, sh(dir, "umount " + mnt), "unmounted from outside cx");
            mount.awaitLine("was unmounted; stopping", WAIT);
            Await.until("cx fs mount to end once its directory is unmounted", WAIT, () -> !mount.isAlive());
        }
    }

    @Test
    void aFileServerKilledWhileAProgramWritesThroughTheMountFailsTheProgramAndNamesNothing() throws Exception {
        assumeFuse();
        String names = federation("--throttle", "4M");
        ChildProcess server = processes.getLast();
        try (FsClient fs = client(names)) {
            Path mnt = mount(names);
            Path local = Files.write(dir.resolve("big.bin"), new byte[64 << 20]);
            Process cp = new ProcessBuilder("cp", local.toString(), mnt.resolve("half.bin").toString())
                    .redirectErrorStream(true).start();
            Path incoming = dir.resolve("disk/.cx-fs/incoming");
            FsProcesses.awaitPartFile(incoming);
            server.kill();
            assertTrue(cp.waitFor(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS), "cp to end");
            String said = new String(cp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(cp.exitValue() != 0 && said.contains("Input/output error"), "cp says why it failed: " + said);
            assertEquals(FsException.Code.ENOENT, org.junit.jupiter.api.Assertions.assertThrows(FsException.class,
                    () -> fs.stat("/half.bin")).code(), "nothing of it is named");
        }
    }

    private static String read(FsClient fs, String path) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        fs.read(path, out, FsClient.Progress.NONE);
        return out.toString(StandardCharsets.UTF_8);
    }
}
