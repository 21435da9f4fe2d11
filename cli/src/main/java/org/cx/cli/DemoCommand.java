package org.cx.cli;

import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.discovery.LookupService;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.FibBench;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.security.CredentialRole;
import org.cx.security.ThrowAwayCredentials;
import org.cx.security.Tls;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.EventLoops;
import org.cx.wire.WireClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx demo}: the quick start, a whole network embedded in this process. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"The quick start: computes F(20) on a network embedded in this process.",
            "It runs a lookup service, a task server registered there, and producers and a consumer that find",
            "it there, all talking over loopback TCP, with a small sleep load (2 ms per leaf, 0.1 ms per other",
            "task). An unloaded F(n) warms up the JVM first; then each run prints its wall time and efficiency",
            "beside the zero-overhead ceiling: the first runs still pay for the JIT compiling CX's code."})
final class DemoCommand extends Printing implements Callable<Integer> {

    @Option(names = "--n", defaultValue = "20", description = "Which Fibonacci number. Default: ${DEFAULT-VALUE}.")
    int n;

    @Option(names = "--producers", defaultValue = "16",
            description = "Producers, each with its own connection. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--runs", defaultValue = "3",
            description = "Measured runs of F(n), one after another. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Override
    @SuppressWarnings("try") // the announcer only needs closing
    public Integer call() throws Exception {
        if (n < 0 || n > 40 || producers < 1 || runs < 1) {
            throw new IllegalArgumentException("--n must be in 0..40, --producers and --runs at least 1");
        }
        Load load = LoadOptions.of("sleep", 0.1, 2, 0.1).toLoad();
        ThrowAwayCredentials trust = ThrowAwayCredentials.make(); // nothing is left in ~/.cx
        Tls serverTls = trust.tls(CredentialRole.SERVER, "demo");
        Tls producerTls = trust.tls(CredentialRole.PRODUCER, "demo-producers");
        EventLoopGroup loops = EventLoops.create("demo-producers", 2);
        List<Producer> started = new ArrayList<>();
        try (LookupService lookup = LookupService.start("127.0.0.1", 0);
             RiverDiscovery discovery = RiverDiscovery.connect(lookup.address());
             TaskServerNode node = TaskServerNode.start(ServerConfig.defaults(serverTls).withPort(0).withName("demo"));
             Announcer announcer = Announcer.start(discovery, node)) {
            out().printf("lookup service on %s; task server %s registered there%n", lookup.address(),
                    node.advertisedAddress());
            for (int i = 0; i < producers; i++) {
                String server = Networks.serverForProducer(discovery, lookup.address(), producerTls);
                started.add(Producer.start(ProducerConfig.of(WireClient.parseAddress(server), 1, producerTls)
                        .withName("demo-" + i).withBox(TaskBox.inProcess()), loops));
            }
            out().printf("%d producers found it there%n", producers);
            Tls userTls = trust.tls(CredentialRole.USER, System.getProperty("user.name", "user"));
            try (Consumer consumer = Consumer.connect(Networks.networkRoot(discovery, lookup.address(), userTls),
                    userTls)) {
                warmUp(consumer);
                out().printf("computing F(%d) %d time%s (%d tasks; sleep load: 2 ms per leaf, 0.1 ms per other "
                        + "task) ...%n", n, runs, runs == 1 ? "" : "s", Fib.taskCount(n));
                boolean allRight = true;
                for (int i = 1; i <= runs; i++) {
                    allRight &= runOnce(consumer, load, i);
                }
                return allRight ? 0 : 1;
            } finally {
                started.forEach(Producer::close); // before their server goes
            }
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * F(n) without load, unmeasured: on a fresh JVM the first thousands of tasks run while the JIT is still
     * compiling the server's and producers' paths. Without it the first measured run of the default F(20) got
     * about 0.77 of the ceiling, with it 0.83-0.87, and the second and third runs 0.96-0.98. Under a second.
     */
    private void warmUp(Consumer consumer) throws Exception {
        out().printf("warming up the JVM: F(%d) without load, not measured ...%n", n);
        out().flush();
        long start = System.nanoTime();
        consumer.submit(new Fib(n, Load.NONE)).result().get();
        out().printf("warmed up in %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    /** One measured run: prints its result, task count check and efficiency; whether the result is right. */
    private boolean runOnce(Consumer consumer, Load load, int run) throws Exception {
        long start = System.nanoTime();
        Consumer.Pending<Long> pending = consumer.submit(new Fib(n, load));
        long value = pending.result().get();
        double wall = (System.nanoTime() - start) / 1e9;
        Consumer.Summary s = pending.summary();
        boolean countRight = s.tasks() == Fib.taskCount(n);
        out().printf("run %d/%d: F(%d) = %d | %d tasks (3*F(n+1)-2: %s), %d executions | %.3f s | efficiency %.3f"
                        + " (ceiling %.3f)%n", run, runs, n, value, s.tasks(),
                countRight ? "match" : "MISMATCH, expected " + Fib.taskCount(n), s.executions(),
                wall, s.t1Nanos() / 1e9 / producers / wall,
                FibBench.ceiling(n, producers, load, s.t1Nanos() / 1e9, s.tasks()));
        out().flush();
        return value == Fib.value(n) && countRight;
    }
}
