package org.cx.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.cx.api.Task;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.producer.Producer;
import org.cx.server.NetworkConfig;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;

/**
 * {@code cx bench code}: how long a new application's code takes to reach every producer. A bundle of the
 * Fibonacci classes padded to the given size (incompressible bytes) is submitted to S servers with P producers,
 * none of which has it; measured: the time from submission until the last producer has run a task, and the bytes
 * the consumer sent.
 */
public final class CodeBench {

    public record Sample(int servers, int producers, int bundleBytes, double firstTaskMs, double lastProducerMs,
                  long consumerBytes, long serverFetches, long producerFetches) {
    }

    private CodeBench() {
    }

    /**
     * F(21) built from the bundle's classes, each leaf sleeping 5 ms plus 5 ms per MiB of bundle: long enough for
     * every producer to get a task even when 64 of them unpack a large bundle on two cores.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Task rootFrom(ClassLoader bundle, int megabytes) throws ReflectiveOperationException {
        Class<?> load = bundle.loadClass(Load.class.getName());
        Class<?> kind = bundle.loadClass(Load.Kind.class.getName());
        Object sleep = Enum.valueOf((Class) kind, Load.Kind.SLEEP.name());
        Object leaves = load.getMethod("ofMillis", kind, double.class, double.class, double.class)
                .invoke(null, sleep, 0.0, 5.0 + 5.0 * megabytes, 0.0);
        return (Task) bundle.loadClass(Fib.class.getName()).getConstructor(int.class, load).newInstance(21, leaves);
    }

    public static Sample run(int servers, int producers, int megabytes, PrintStream log) throws Exception {
        Map<String, byte[]> entries = new TreeMap<>(AppJars.packageOf(Fib.class));
        byte[] padding = new byte[megabytes << 20];
        new Random(42).nextBytes(padding);
        entries.put("padding.bin", padding);
        CodeBundle bundle = CodeBundle.of(AppJars.jar(entries));
        Task root = rootFrom(new BundleClassLoader(bundle), megabytes);
        // Seven servers and 64 producers share this JVM and two cores; while the producers unpack a 20 MB bundle,
        // GC pauses and CPU starvation would trip a 1 s failure detector, which is not what this measures.
        ServerConfig config = ServerConfig.defaults().withName("code")
                .withNetwork(NetworkConfig.defaults().withFailTimeout(Duration.ofSeconds(10)));
        try (LocalCluster cluster = LocalCluster.start(config, servers, producers, 1, true);
             Consumer consumer = cluster.consumer()) {
            log.printf("%d servers, %d producers up; submitting %s%n", servers, producers, bundle);
            long start = System.nanoTime();
            Consumer.Pending<Long> run = consumer.submit(root);
            double first = -1;
            long deadline = start + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                long ran = cluster.producers().stream().filter(p -> p.tasksRun() > 0).count();
                if (ran > 0 && first < 0) {
                    first = (System.nanoTime() - start) / 1e6;
                }
                if (ran == producers) {
                    break;
                }
                if (System.nanoTime() > deadline || run.result().isDone()) {
                    throw new IllegalStateException("only " + ran + " of " + producers + " producers ran a task; "
                            + "make the computation longer");
                }
                Thread.sleep(1);
            }
            double last = (System.nanoTime() - start) / 1e6;
            run.result().get(600, TimeUnit.SECONDS);
            long serverFetches = 0;
            for (TaskServerNode s : cluster.servers()) {
                serverFetches += s.status().bundleFetches();
            }
            long producerFetches = cluster.producers().stream().mapToLong(Producer::bundlesFetched).sum();
            return new Sample(servers, producers, bundle.size(), first, last, consumer.bundleBytesSent(),
                    serverFetches, producerFetches);
        }
    }
}
