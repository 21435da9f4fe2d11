package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.Task;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.AppJars;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.cx.testing.ChildProcess;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile task code, submitted as a user's signed jar, against a real {@code cx producer} process with its default
 * isolation, beside an honest computation that must stay right: what the probes did on the producer's host
 * now stays in the task's box.
 */
class TaskBoxTest {
    @TempDir
    Path dir;

    private static final Map<String, String> HOSTILE = Map.of("hostile.Probe", """
            package hostile;

            import java.nio.file.Files;
            import java.nio.file.Path;

            /** Reads the producer's key, runs a program, plants a file, calls the server. */
            public class Probe extends org.cx.api.Task {
                private final String secret;
                private final String planted;
                private final int port;

                public Probe(String secret, String planted, int port) {
                    this.secret = secret;
                    this.planted = planted;
                    this.port = port;
                }

                @Override
                public void execute(org.cx.api.TaskContext context) {
                    context.sendResult("secret=" + attempt(() -> Files.readString(Path.of(secret)).length() + " chars")
                            + " passwd=" + attempt(() -> Files.readString(Path.of("/etc/passwd")).length() + " chars")
                            + " id=" + attempt(() -> new String(new ProcessBuilder("id", "-u").start().getInputStream()
                                    .readAllBytes()).trim())
                            + " planted=" + attempt(() -> Files.writeString(Path.of(planted), "x").toString())
                            + " connect=" + attempt(() -> {
                                try (var s = new java.net.Socket()) {
                                    s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2000);
                                    return "connected";
                                }
                            }));
                }

                interface Attempt {
                    String run() throws Exception;
                }

                private static String attempt(Attempt a) {
                    try {
                        return "ok:" + a.run();
                    } catch (Exception e) {
                        return "refused:" + e.getClass().getSimpleName();
                    }
                }
            }
            """, "hostile.Spin", """
            package hostile;

            /** Loops without end. */
            public class Spin extends org.cx.api.Task {
                public static long spins;

                @Override
                public void execute(org.cx.api.TaskContext context) {
                    while (true) {
                        spins++;
                    }
                }
            }
            """, "hostile.Hog", """
            package hostile;

            /** Allocates without limit. */
            public class Hog extends org.cx.api.Task {
                @Override
                public void execute(org.cx.api.TaskContext context) {
                    java.util.List<long[]> held = new java.util.ArrayList<>();
                    while (true) {
                        held.add(new long[1 << 20]);
                    }
                }
            }
            """, "hostile.Quit", """
            package hostile;

            /** Ends the process it runs in. */
            public class Quit extends org.cx.api.Task {
                @Override
                public void execute(org.cx.api.TaskContext context) {
                    Runtime.getRuntime().halt(7);
                }
            }
            """);

    private static Task load(BundleClassLoader loader, String className, Object... args) throws Exception {
        for (Constructor<?> c : loader.loadClass(className).getConstructors()) {
            if (c.getParameterCount() == args.length) {
                return (Task) c.newInstance(args);
            }
        }
        throw new IllegalArgumentException(className + " has no constructor of " + args.length + " parameters");
    }

    private static String failureOf(Computation<?> c) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> c.result().get(120, TimeUnit.SECONDS));
        return e.getCause().getMessage();
    }

    @Test
    void hostileTasksStayInTheirBoxAndAnHonestComputationBesideThemIsRight() throws Exception {
        BundleClassLoader hostile = new BundleClassLoader(CodeBundle.of(AppJars.jar(Jars.compile(HOSTILE,
                dir.resolve("build")))));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("box"), 1, 0, 1, true);
             ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--server",
                     "127.0.0.1:" + cluster.server().port(), "--workers", "2", "--task-heap", "64",
                     "--task-cpu-limit", "2s");
             Consumer consumer = cluster.consumer()) {
            String attached = producer.awaitLine("attached to", Duration.ofSeconds(30));
            Computation<Long> honest = consumer.submit(new Fib(17));

            Computation<?> spin = consumer.submit(load(hostile, "hostile.Spin"));
            String spun = failureOf(spin);
            assertTrue(spun.contains("used more than 2 s of CPU time") && spun.contains("--task-cpu-limit"), spun);

            String hogged = failureOf(consumer.submit(load(hostile, "hostile.Hog")));
            assertTrue(hogged.contains("ran out of memory"), hogged);

            String quit = failureOf(consumer.submit(load(hostile, "hostile.Quit")));
            assertTrue(quit.contains("ended its worker process (exit status 7)"), quit);

            assertEquals(Fib.value(17), honest.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.value(15), consumer.<Long>submit(new Fib(15)).result().get(60, TimeUnit.SECONDS),
                    "the producer's replaced workers run the next computation");

            assumeTrue(attached.contains("sandboxed"), "bubblewrap is not usable here (Debian: apt install "
                    + "bubblewrap), so the producer's host is not protected: " + attached);
            Path key = Path.of(System.getProperty("cx.home"), "credentials", "producer", "key.pem");
            assertTrue(Files.exists(key), "the producer's key is on this host: " + key);
            Path planted = dir.resolve("planted");
            String probed = consumer.<String>submit(load(hostile, "hostile.Probe", key.toString(),
                    planted.toString(), cluster.server().port())).result().get(60, TimeUnit.SECONDS);
            System.out.println("probe: " + probed);
            assertTrue(probed.contains("secret=refused:NoSuchFileException"), probed);
            assertTrue(probed.contains("passwd=refused:NoSuchFileException"), probed);
            assertTrue(probed.contains("id=ok:65534"), "an unprivileged user runs task code: " + probed);
            assertTrue(probed.contains("connect=refused"), probed);
            assertFalse(Files.exists(planted), "nothing written outside the scratch directory: " + probed);
        }
    }
}
