package org.cx.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A JVM started from the test's own class path running {@code mainClass}, its output kept for assertions and
 * echoed with a prefix. Killed with {@link #kill()} (SIGKILL) in failure tests, destroyed on close otherwise.
 */
public final class ChildProcess implements AutoCloseable {
    /**
     * Every process started, killed when the test JVM exits: a test that fails before it can close its processes
     * (say, while starting them) must not leave servers running into the tests after it.
     */
    private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> STARTED.forEach(Process::destroyForcibly),
                "child-process-reaper"));
    }

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private ChildProcess(Process process, String prefix) {
        this.process = process;
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                    System.out.println(prefix + line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        }, prefix + "output");
        pump.setDaemon(true);
        pump.start();
    }

    public static ChildProcess start(String name, String mainClass, String... args) throws IOException {
        return start(name, System.getProperty("java.class.path"), mainClass, args);
    }

    /** Like {@link #start(String, String, String...)}, without the class path entries containing {@code omit}. */
    public static ChildProcess startWithout(String omit, String name, String mainClass, String... args)
            throws IOException {
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> !entry.contains(omit))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        return start(name, classPath, mainClass, args);
    }

    private static ChildProcess start(String name, String classPath, String mainClass, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        if (System.getProperty("cx.home") != null) {
            command.add("-Dcx.home=" + System.getProperty("cx.home")); // the tests' own authority and credentials
        }
        if (Runtime.version().feature() >= 24) {
            command.add("--sun-misc-unsafe-memory-access=allow"); // Kryo
            command.add("--enable-native-access=ALL-UNNAMED"); // Netty's epoll transport
        }
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        STARTED.add(p);
        return new ChildProcess(p, "[" + name + "] ");
    }

    public long pid() {
        return process.pid();
    }

    public List<String> output() {
        return lines;
    }

    /** Waits until a line containing {@code text} has been printed. */
    public String awaitLine(String text, Duration timeout) {
        return Await.value("a line containing '" + text + "'", timeout,
                () -> lines.stream().filter(l -> l.contains(text)).findFirst().orElse(null), l -> l != null);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the process gets no chance to say goodbye. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Sends SIGKILL without waiting for the process to be gone (see {@link #kill}). */
    public void killNoWait() {
        process.destroyForcibly();
    }

    /** SIGTERM: the process is asked to stop, and runs its shutdown hooks. */
    public void terminate() throws IOException, InterruptedException {
        signal("TERM");
    }

    /** SIGSTOP: the process freezes, its sockets stay open (a hung machine, as the network sees it). */
    public void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT: a frozen process runs on. */
    public void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " exited with " + rc);
        }
    }

    /** Waits for the process to end; returns its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new AssertionError("process " + process.pid() + " still running after " + timeout);
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
