package org.cx.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.cx.fs.FsClient;
import org.cx.fs.Sizes;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cx bench fs}: the federated file service against a plain TCP copy between two processes, small files, a
 * large directory, and striping over throttled file servers. The name service, file servers and the baseline's peer
 * are processes of their own; the client is this one.
 */
@Command(name = "fs", mixinStandardHelpOptions = true,
        description = {"Measures the federated file service on this machine, side by side in one run:",
            "  seq:     a --size file written and read through the client library (as cx fs cp), the NIO",
            "           provider and a FUSE mount (by Files.copy, and by cp), against a plain TCP copy of the same",
            "           bytes between two processes (written and forced, as a file server does); medians of --repeats",
            "  small:   creating --files 4 KiB files (per second), then open + read + close of each (median, p99)",
            "  list:    ls -l of a directory of 10,000 entries",
            "  stripes: a file read from 1 and from 4 file servers each held to --throttle bytes a second",
            "Processes: a name service, file servers and the baseline's peer; with TLS unless --insecure."})
final class BenchFsCommand extends Printing implements Callable<Integer> {
    @Option(names = "--only", split = ",", paramLabel = "PART", description = "seq, small, list, stripes. "
            + "Default: all.")
    List<String> only = List.of("seq", "small", "list", "stripes");

    @Option(names = "--size", defaultValue = "1G", description = "Size of the sequential file. Default: "
            + "${DEFAULT-VALUE}.")
    String size;

    @Option(names = "--repeats", defaultValue = "3", description = "Runs of each transfer. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--files", defaultValue = "2000", description = "Small files. Default: ${DEFAULT-VALUE}.")
    int files;

    @Option(names = "--clients", defaultValue = "16", description = "Threads that create small files at once. "
            + "Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--throttle", defaultValue = "16M", description = "Bandwidth of each file server in the "
            + "striping part. Default: ${DEFAULT-VALUE}.")
    String throttle;

    @Option(names = "--insecure", description = "Plain connections everywhere (default: TLS with this user's local "
            + "credentials).")
    boolean insecure;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where the bench keeps its files: the local copies, the "
            + "file servers' disks, the baseline peer's file. A tmpfs (/dev/shm) takes the disk's own speed, which "
            + "varies widely on shared machines, out of the comparison. Default: the temporary directory.")
    Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Also writes the figures as JSON to FILE.")
    Path json;

    /** Rounds of --files creates and reads before the small-file figures: the servers' JIT needs about 10,000. */
    private static final int WARM_UP_ROUNDS = 5;
    private FsBenchProcesses processes;
    private final Map<String, Object> results = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        Path scratch = dir == null ? Files.createTempDirectory("cx-bench-fs")
                : Files.createTempDirectory(Files.createDirectories(dir), "cx-bench-fs");
        Tls tls = insecure ? null : CxHome.local(CredentialRole.USER, true);
        results.put("tls", !insecure);
        results.put("processors", Runtime.getRuntime().availableProcessors());
        results.put("dir", scratch.getParent().toString());
        processes = new FsBenchProcesses(scratch, insecure);
        try {
            if (only.contains("seq")) {
                seq(scratch, tls);
            }
            if (only.contains("small") || only.contains("list")) {
                String names = processes.start("names-small", 1, 0);
                try (FsClient fs = FsClient.connect(names, tls, System.getProperty("user.name"))) {
                    FsBenchProcesses.awaitServers(fs, 1);
                    if (only.contains("small")) {
                        small(fs);
                    }
                    if (only.contains("list")) {
                        list(fs);
                    }
                }
            }
            if (only.contains("stripes")) {
                stripes(scratch, tls);
            }
        } finally {
            processes.stopAll();
            FsBenchProcesses.deleteTree(scratch);
        }
        if (json != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), results);
            out().println("wrote " + json);
        }
        return 0;
    }

    // ---------------------------------------------------------------- sequential

    private void seq(Path scratch, Tls tls) throws Exception {
        long bytes = Sizes.parse(size);
        Path local = scratch.resolve("local.bin");
        Path back = scratch.resolve("back.bin");
        writeRandom(local, bytes);
        String names = processes.start("names-seq", 1, 0);
        Process peer = processes.spawn(FsBenchPeer.class.getName(), scratch.resolve("peer.bin").toString());
        int port = Integer.parseInt(FsBenchProcesses.awaitLine(peer, "port ").substring(5).trim());
        out().printf(Locale.ROOT, "seq: %s, %d runs each (%s)%n", Sizes.human(bytes), repeats,
                insecure ? "plain connections" : "TLS");
        Path mount = mount(scratch, names);
        try (FsClient fs = FsClient.connect(names, tls, System.getProperty("user.name"));
             FileSystem nio = FileSystems.newFileSystem(URI.create("cx://" + names + "/"), tls == null
                     ? Map.of("user", System.getProperty("user.name")) : Map.of("tls", tls))) {
            FsBenchProcesses.awaitServers(fs, 1);
            Map<String, List<Double>> mibs = new LinkedHashMap<>();
            for (int run = -1; run < repeats; run++) { // run -1 warms up
                boolean warm = run < 0;
                record("tcp write", mibs, warm, bytes, () -> tcpWrite(port, local, bytes));
                record("tcp read", mibs, warm, bytes, () -> tcpRead(port, back));
                record("cp write", mibs, warm, bytes, () -> {
                    try (InputStream in = Files.newInputStream(local)) {
                        fs.write("/seq.bin", in, bytes, FsClient.Progress.NONE);
                    }
                });
                record("cp read", mibs, warm, bytes, () -> {
                    try (OutputStream out = Files.newOutputStream(back)) {
                        fs.read("/seq.bin", out, FsClient.Progress.NONE);
                    }
                    force(back);
                });
                record("nio write", mibs, warm, bytes, () -> Files.copy(local, nio.getPath("/nio.bin"),
                        StandardCopyOption.REPLACE_EXISTING));
                record("nio read", mibs, warm, bytes, () -> {
                    Files.copy(nio.getPath("/nio.bin"), back, StandardCopyOption.REPLACE_EXISTING);
                    force(back);
                });
                if (mount != null) {
                    record("fuse write", mibs, warm, bytes, () -> Files.copy(local, mount.resolve("fuse.bin"),
                            StandardCopyOption.REPLACE_EXISTING));
                    record("fuse read", mibs, warm, bytes, () -> {
                        Files.copy(mount.resolve("fuse.bin"), back, StandardCopyOption.REPLACE_EXISTING);
                        force(back);
                    });
                    // An unmodified program, which is what the mount is for (Java programs have the NIO provider).
                    record("fuse cp write", mibs, warm, bytes, () -> run("cp", local.toString(),
                            mount.resolve("cp.bin").toString()));
                    record("fuse cp read", mibs, warm, bytes, () -> {
                        run("cp", mount.resolve("cp.bin").toString(), back.toString());
                        force(back);
                    });
                }
            }
            Map<String, Object> seq = new LinkedHashMap<>();
            for (Map.Entry<String, List<Double>> e : mibs.entrySet()) {
                double median = median(e.getValue());
                String way = e.getKey().endsWith("write") ? "tcp write" : "tcp read";
                double ratio = median / median(mibs.get(way));
                seq.put(e.getKey(), Map.of("MiBps", round(median), "runs", e.getValue(), "ofTcp", round(ratio)));
                out().printf(Locale.ROOT, "  %-13s %7.0f MiB/s  %.2f of plain TCP   (runs %s)%n", e.getKey(), median,
                        ratio, e.getValue());
            }
            results.put("seq", seq);
        }
    }

    /** Runs {@code command} to its end; fails unless it succeeds. */
    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + ")");
        }
    }

    /** A FUSE mount of the federation at {@code names} (a process of its own), or null where FUSE is missing. */
    private Path mount(Path scratch, String names) throws IOException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            out().println("  (no /dev/fuse here: no FUSE figures)");
            return null;
        }
        Path dir = Files.createDirectories(scratch.resolve("mnt"));
        List<String> args = new ArrayList<>(List.of(Cx.class.getName(), "fs", "mount", "--names", names,
                "--scratch", Files.createDirectories(scratch.resolve("mount-scratch")).toString(), dir.toString()));
        if (insecure) {
            args.add("--insecure");
        }
        try {
            FsBenchProcesses.awaitLine(processes.spawn(args.toArray(String[]::new)), "mounted the federation");
            return dir;
        } catch (IOException e) {
            out().println("  (cannot mount: " + e.getMessage() + "; no FUSE figures)");
            return null;
        }
    }

    private static void writeRandom(Path file, long bytes) throws IOException {
        byte[] block = new byte[1 << 20];
        new Random(1).nextBytes(block);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long done = 0; done < bytes; done += block.length) {
                out.write(block, 0, (int) Math.min(block.length, bytes - done));
                block[0]++; // no two blocks alike
            }
        }
    }

    private static void force(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    private static void tcpWrite(int port, Path local, long bytes) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
             InputStream in = Files.newInputStream(local)) {
            s.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeByte(1);
            out.writeLong(bytes);
            in.transferTo(out);
            out.flush();
            if (s.getInputStream().read() != 1) {
                throw new IOException("the peer did not confirm the copy");
            }
        }
    }

    private static void tcpRead(int port, Path back) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
             OutputStream out = Files.newOutputStream(back)) {
            s.setTcpNoDelay(true);
            s.getOutputStream().write(2);
            DataInputStream in = new DataInputStream(s.getInputStream());
            long n = in.readLong();
            byte[] buffer = new byte[1 << 20];
            for (long done = 0; done < n; ) {
                int r = in.read(buffer, 0, (int) Math.min(buffer.length, n - done));
                if (r < 0) {
                    throw new IOException("the peer stopped sending");
                }
                out.write(buffer, 0, r);
                done += r;
            }
        }
        force(back);
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static void record(String name, Map<String, List<Double>> into, boolean warm, long bytes, Step step)
            throws Exception {
        long t0 = System.nanoTime();
        step.run();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (!warm) {
            into.computeIfAbsent(name, k -> new ArrayList<>()).add(round(bytes / seconds / (1 << 20)));
        }
    }

    // ---------------------------------------------------------------- small files and listings

    private void small(FsClient fs) throws Exception {
        byte[] four = new byte[4096];
        new Random(2).nextBytes(four);
        fs.mkdir("/small", true);
        for (int round = 0; round < WARM_UP_ROUNDS; round++) { // the three processes' compilers reach steady state
            String prefix = "/small/warm" + round + "-";
            createConcurrently(fs, prefix, four);
            for (int i = 0; i < files; i++) {
                fs.read(prefix + i, OutputStream.nullOutputStream(), FsClient.Progress.NONE);
            }
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < files; i++) {
            fs.write("/small/f" + i, new ByteArrayInputStream(four), four.length, FsClient.Progress.NONE);
        }
        double perSecond = files / ((System.nanoTime() - t0) / 1e9);
        long t1 = System.nanoTime();
        createConcurrently(fs, "/small/g", four);
        double concurrent = files / ((System.nanoTime() - t1) / 1e9);
        double[] ms = new double[files];
        for (int i = 0; i < files; i++) {
            long s = System.nanoTime();
            fs.read("/small/f" + i, OutputStream.nullOutputStream(), FsClient.Progress.NONE);
            ms[i] = (System.nanoTime() - s) / 1e6;
        }
        Arrays.sort(ms);
        double median = ms[ms.length / 2];
        double p99 = ms[(int) Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)];
        out().printf(Locale.ROOT, "small: created %,d files of 4 KiB at %,.0f/s one at a time, %,.0f/s from %d "
                + "threads; open+read+close median %.2f ms, p99 %.2f ms%n", files, perSecond, concurrent, clients,
                median, p99);
        results.put("small", Map.of("files", files, "createdPerSecond", round(perSecond), "createdPerSecondThreads",
                round(concurrent), "threads", clients, "readMedianMs", round(median), "readP99Ms", round(p99)));
    }

    /** Creates --files files named PREFIX0, PREFIX1 ... from --clients threads. */
    private void createConcurrently(FsClient fs, String prefix, byte[] content) throws Exception {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(clients)) {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < files; i = next.getAndIncrement()) {
                        fs.write(prefix + i, new ByteArrayInputStream(content), content.length,
                                FsClient.Progress.NONE);
                    }
                    return null;
                }));
            }
            for (var f : done) {
                f.get();
            }
        }
    }

    private void list(FsClient fs) throws Exception {
        int n = 10_000;
        fs.mkdir("/wide", true);
        byte[] none = new byte[0];
        for (int i = 0; i < n; i++) {
            fs.write("/wide/entry-" + i, new ByteArrayInputStream(none), 0, FsClient.Progress.NONE);
        }
        List<Double> ms = new ArrayList<>();
        for (int run = 0; run < 5; run++) {
            long t0 = System.nanoTime();
            StringBuilder text = new StringBuilder();
            for (org.cx.fs.Namespace.Named e : fs.list("/wide")) {
                text.append(FsCommand.longLine(e.name(), e.entry())).append('\n');
            }
            ms.add(round((System.nanoTime() - t0) / 1e6));
        }
        double median = median(ms.subList(1, ms.size()));
        out().printf(Locale.ROOT, "list: ls -l of %,d entries %.0f ms (median of %s, first run warms up)%n", n,
                median, ms.subList(1, ms.size()));
        results.put("list", Map.of("entries", n, "medianMs", median, "runsMs", ms));
    }

    // ---------------------------------------------------------------- striping

    private void stripes(Path scratch, Tls tls) throws Exception {
        long limit = Sizes.parse(throttle);
        long bytes = 4 * limit; // four seconds from one server
        Path local = scratch.resolve("stripes.bin");
        writeRandom(local, bytes);
        String names = processes.start("names-stripes", 4, limit);
        try (FsClient fs = FsClient.connect(names, tls, System.getProperty("user.name"))) {
            FsBenchProcesses.awaitServers(fs, 4);
            for (int k : new int[] {1, 4}) {
                try (InputStream in = Files.newInputStream(local)) {
                    fs.write("/striped-" + k, in, bytes, new FsClient.Placement(k, 1 << 20, 1),
                            FsClient.Progress.NONE);
                }
            }
            Map<Integer, Double> seconds = new LinkedHashMap<>();
            for (int k : new int[] {1, 4}) {
                List<Double> runs = new ArrayList<>();
                for (int run = 0; run < repeats; run++) {
                    long t0 = System.nanoTime();
                    fs.read("/striped-" + k, OutputStream.nullOutputStream(), FsClient.Progress.NONE);
                    runs.add((System.nanoTime() - t0) / 1e9);
                }
                seconds.put(k, median(runs));
            }
            double speedup = seconds.get(1) / seconds.get(4);
            out().printf(Locale.ROOT, "stripes: %s from file servers held to %s/s each: 1 server %.2f s, 4 stripes "
                    + "%.2f s: %.2f x%n", Sizes.human(bytes), Sizes.human(limit), seconds.get(1), seconds.get(4),
                    speedup);
            results.put("stripes", Map.of("bytes", bytes, "throttleBytesPerSecond", limit, "oneServerSeconds",
                    round(seconds.get(1)), "fourStripesSeconds", round(seconds.get(4)), "speedup", round(speedup)));
        }
    }

    // ---------------------------------------------------------------- figures

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
