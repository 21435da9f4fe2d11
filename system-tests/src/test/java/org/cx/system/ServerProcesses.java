package org.cx.system;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.NetworkProbe;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.WireClient;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A production network of task servers, each its own process started with {@code cx server} (so that it can be
 * killed with SIGKILL or frozen with SIGSTOP), each writing a commit log; and producers in this JVM spread over
 * them. The audit helpers check the guarantees of paper §4.2 from the commit logs and the recorded executions.
 */
final class ServerProcesses implements AutoCloseable {
    static final Duration FAIL_TIMEOUT = Duration.ofSeconds(1);
    static final Duration WAIT = Duration.ofSeconds(60);

    private final List<ChildProcess> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<Path> commitLogs = new ArrayList<>();
    private final List<Producer> producers = new ArrayList<>();
    private final EventLoopGroup producerLoops = EventLoops.create("test-producers", 2);
    /** When each server process was killed or frozen, by index. */
    final Map<Integer, Long> failedAt = new HashMap<>();
    private long startedNanos;
    /** More options for every server. */
    private List<String> more = List.of();

    /** Starts {@code count} servers (the first founds the network) and waits until it tolerates a failure. */
    static ServerProcesses start(int count, Path dir) throws IOException {
        return start(count, dir, new String[0]);
    }

    /** As {@link #start(int, Path)}, with {@code more} on every server's command line. */
    static ServerProcesses start(int count, Path dir, String... more) throws IOException {
        ServerProcesses network = new ServerProcesses();
        network.more = List.of(more);
        network.startedNanos = System.nanoTime();
        for (int i = 0; i < count; i++) {
            network.commitLogs.add(dir.resolve("commits-" + i + ".log"));
        }
        try {
            network.launch(0, null);
            for (int i = 1; i < count; i++) {
                // One JVM start at a time, each a member before the next starts: seven at once on two cores can
                // starve a new member's heartbeats past the failure timeout, and it is (rightly) declared failed.
                network.launch(i, "127.0.0.1:" + network.ports.get(0));
                network.awaitMembers(i + 1);
            }
            network.awaitTolerant(count);
            return network;
        } catch (RuntimeException | Error | IOException e) {
            network.close(); // the test never gets the network to close: do not leave its servers running
            throw e;
        }
    }

    /**
     * Starts server {@code i} on a port of its own choosing and waits until it listens. (Ports picked free beforehand
     * were now and then taken by another connection before the server bound them.)
     */
    private void launch(int i, String join) throws IOException {
        List<String> args = new ArrayList<>(List.of("server", "--port", "0", "--name", "s" + i,
                "--no-jmx", "--fail-timeout", FAIL_TIMEOUT.toString(), "--commit-log", commitLogs.get(i).toString()));
        if (join != null) {
            args.add("--join");
            args.add(join);
        }
        args.addAll(more);
        ChildProcess process = ChildProcess.start("s" + i, "org.cx.cli.Cx", args.toArray(String[]::new));
        processes.add(process);
        String line = process.awaitLine("listening on", WAIT);
        ports.add(WireClient.parseAddress(line.substring(line.lastIndexOf(' ') + 1)).getPort());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    String address(int i) {
        return "127.0.0.1:" + ports.get(i);
    }

    int size() {
        return processes.size();
    }

    ChildProcess process(int i) {
        return processes.get(i);
    }

    /** Index of the server process at tree position {@code position} now. */
    int atPosition(int position) {
        for (Message.ServerStatus s : status().servers()) {
            if (s.position() == position) {
                return indexOf(s.address());
            }
        }
        throw new AssertionError("no server at position " + position);
    }

    /** The network id of server process {@code i} (not its index: ids are given in order of joining). */
    int idOf(int i) {
        for (Message.ServerStatus s : status().servers()) {
            if (indexOf(s.address()) == i) {
                return s.id();
            }
        }
        throw new AssertionError("server process " + i + " is not in the network");
    }

    private int indexOf(String address) {
        return ports.indexOf(WireClient.parseAddress(address).getPort());
    }

    /** The network as the primary root sees it, asked of any live server. */
    Message.NetworkStatus status() {
        IOException last = null;
        for (int i = 0; i < processes.size(); i++) {
            if (!failedAt.containsKey(i)) {
                try {
                    return NetworkProbe.status(address(i));
                } catch (IOException e) {
                    last = e;
                }
            }
        }
        throw new UncheckedIOException("no live server answered", last);
    }

    /** Waits until the network counts {@code servers} members (the newest has joined). */
    void awaitMembers(int servers) {
        Await.until(servers + " members", WAIT, () -> {
            try {
                return status().servers().length == servers;
            } catch (UncheckedIOException e) {
                return false;
            }
        });
    }

    /** Waits until the network has {@code servers} members and every one is mirrored again. */
    void awaitTolerant(int servers) {
        Await.until(servers + " servers, tolerant of another failure", WAIT, () -> {
            try {
                Message.NetworkStatus s = status();
                return s.servers().length == servers && s.tolerant();
            } catch (UncheckedIOException e) {
                return false;
            }
        });
    }

    /** Attaches {@code perServer} one-worker producers to every live server. */
    void attachProducers(int perServer) throws IOException {
        for (int i = 0; i < processes.size(); i++) {
            for (int k = 0; k < perServer; k++) {
                ProducerConfig pc = ProducerConfig.of(WireClient.parseAddress(address(i)), 1)
                        .withName("p" + i + "-" + k).withBox(TaskBox.inProcess());
                producers.add(Producer.start(pc, producerLoops));
            }
        }
    }

    void kill(int i) throws InterruptedException {
        failedAt.put(i, System.nanoTime());
        processes.get(i).kill();
    }

    /** Kills several servers at once: every SIGKILL is sent before any of them is waited for. */
    void killTogether(int... ids) throws InterruptedException {
        for (int i : ids) {
            failedAt.put(i, System.nanoTime());
            processes.get(i).killNoWait();
        }
        for (int i : ids) {
            processes.get(i).kill();
        }
    }

    void freeze(int i) throws IOException, InterruptedException {
        failedAt.put(i, System.nanoTime());
        processes.get(i).freeze();
    }

    /** Committed task ids, over all servers' commit logs, each with its commit times. */
    Map<String, List<Long>> commits() throws IOException {
        Map<String, List<Long>> commits = new HashMap<>();
        for (Path log : commitLogs) {
            if (!Files.exists(log)) {
                continue;
            }
            for (String line : Files.readAllLines(log)) {
                String[] f = line.split(" ");
                if (f.length == 3) { // a line cut short by SIGKILL has fewer fields
                    commits.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Long.parseLong(f[2]));
                }
            }
        }
        return commits;
    }

    /**
     * Which servers' logs commit {@code taskId}, and when (applied, committed), and the servers' trails of it
     * (stored, sent, received): in ms after the first server started.
     */
    private String whereCommitted(String taskId) throws IOException {
        List<String> where = new ArrayList<>();
        for (int i = 0; i < commitLogs.size(); i++) {
            for (String[] f : lines(commitLogs.get(i), taskId)) {
                where.add("s" + i + ": applied " + sinceStart(f[1]) + ", committed " + sinceStart(f[2]));
            }
        }
        for (int i = 0; i < commitLogs.size(); i++) {
            for (String[] f : lines(ServerConfig.trailBeside(commitLogs.get(i)), taskId)) {
                where.add("s" + i + ": " + f[1] + " " + sinceStart(f[2]));
            }
        }
        failedAt.forEach((i, t) -> where.add("(s" + i + " failed at " + (t - startedNanos) / 1_000_000 + " ms)"));
        return where.toString();
    }

    /** The whole lines of an audit file that are about {@code taskId}, split into their three fields. */
    private static List<String[]> lines(Path file, String taskId) throws IOException {
        List<String[]> found = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split(" ");
                if (f.length == 3 && f[0].equals(taskId)) {
                    found.add(f);
                }
            }
        }
        return found;
    }

    private String sinceStart(String nanos) {
        return (Long.parseLong(nanos) - startedNanos) / 1_000_000 + " ms";
    }

    /**
     * For a computation that never finished: up to {@code limit} tasks that ran in this JVM but that no commit log
     * names, each with where the servers' trails saw it. A lost completion or value is likely among them (so is a
     * change whose log line died with its server, see {@link #assertCommittedWithin}).
     */
    String ranButUncommitted(int limit) {
        try {
            Map<String, List<Long>> commits = commits();
            List<String> found = new ArrayList<>();
            for (String id : TestTasks.EXECUTIONS.stream().map(TestTasks.Execution::task).distinct().toList()) {
                if (found.size() == limit) {
                    break;
                }
                if (!commits.containsKey(id)) {
                    found.add(id + " " + whereCommitted(id));
                }
            }
            return String.join("\n", found);
        } catch (IOException e) {
            return "(no commit logs: " + e + ")";
        }
    }

    /** What the network holds now, for a test that timed out. */
    String describe() {
        try {
            return NetworkProbe.describe(status());
        } catch (RuntimeException e) {
            return "(no network status: " + e + ")";
        }
    }

    int committedCount() {
        try {
            return commits().size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The guarantees, from the commit logs and the executions recorded in this JVM: no task's completion was
     * committed twice (on two servers, or twice on one), and no task ran again after its completion was committed,
     * beyond {@code margin} (the time a Drop may take to reach a producer that was handed a copy before the commit).
     */
    void assertExactlyOnce(Duration margin) throws IOException {
        Map<String, List<Long>> commits = commits();
        List<String> twice = new ArrayList<>();
        for (Map.Entry<String, List<Long>> e : commits.entrySet()) {
            if (e.getValue().size() > 1) {
                twice.add(e.getKey() + " " + whereCommitted(e.getKey()));
            }
        }
        assertEquals(List.of(), twice, "tasks whose effects were applied twice (server: commit time after start)");
        List<String> rerun = new ArrayList<>();
        for (TestTasks.Execution run : TestTasks.EXECUTIONS) {
            List<Long> committed = commits.get(run.task());
            if (committed != null && run.nanos() > committed.get(0) + margin.toNanos()) {
                String parent = run.task().substring(0, run.task().lastIndexOf('/'));
                rerun.add(run.task() + " ran " + (run.nanos() - committed.get(0)) / 1_000_000
                        + " ms after its completion was committed; " + runsAndTrail(run.task()) + "; its parent "
                        + runsAndTrail(parent));
            }
        }
        assertEquals(List.of(), rerun, "completed tasks that ran again");
        assertTrue(!commits.isEmpty(), "the commit logs are empty: was anything audited?");
    }

    /** Where and when {@code taskId} ran in this JVM and what the servers' logs say of it, in ms since the start. */
    private String runsAndTrail(String taskId) throws IOException {
        List<String> runs = TestTasks.EXECUTIONS.stream().filter(r -> r.task().equals(taskId))
                .map(r -> r.worker() + " at " + (r.nanos() - startedNanos) / 1_000_000 + " ms").toList();
        return taskId + " ran on " + runs + ", servers " + whereCommitted(taskId);
    }

    /**
     * The commit logs name at most {@code tasks} distinct tasks (the DAG's), and most of them. Not all: a line is
     * written when the server that applied a change learns that all its mirrors have it, so a change that reached
     * the mirrors just before its server was killed is applied (the heir has it) but its line died with the server.
     */
    void assertCommittedWithin(long tasks) throws IOException {
        int committed = commits().size();
        assertTrue(committed <= tasks, committed + " tasks committed, but the DAG has " + tasks);
        assertTrue(committed >= tasks * 9 / 10, "only " + committed + " of " + tasks + " tasks in the commit logs");
    }

    @Override
    public void close() {
        for (Producer p : producers) {
            p.close();
        }
        producerLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        for (ChildProcess p : processes) {
            try {
                if (p.isAlive()) {
                    p.thaw(); // kill(1) complains about a process that is gone
                }
            } catch (IOException | InterruptedException ignored) {
                // already gone
            }
            p.close();
        }
    }
}
