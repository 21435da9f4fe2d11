package org.cx.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.Callable;
import org.cx.consumer.Consumer;
import org.cx.harness.FibBench;
import org.cx.harness.LocalCluster;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx bench web}: what an open dashboard and a metrics scraper cost the exchange, A/B in one run. */
@Command(name = "web", mixinStandardHelpOptions = true,
        description = {"What the web endpoint costs: F(n) on one warmed-up cluster whose servers have their JMX",
            "connector and a dashboard, runs alternating between nobody looking and a dashboard page plus a",
            "Prometheus scraper each reading once a second (harsher than a scraper's usual 15 s; both also during",
            "the warm-up, so that their code is compiled too); the medians and their ratio.",
            "Example: cx bench web --n 25 --pairs 10 --warmup 10"})
final class BenchWebCommand extends Printing implements Callable<Integer> {
    @Option(names = "--n", defaultValue = "25", description = "Which Fibonacci number. Default: ${DEFAULT-VALUE}.")
    int n;

    @Option(names = "--servers", defaultValue = "1", description = "Task servers. Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(names = "--producers", defaultValue = "2", description = "Producers. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Mixin
    LoadOptions load;

    @Option(names = "--warmup", defaultValue = "3", description = "Unmeasured runs first. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(names = "--pairs", defaultValue = "5", description = "Pairs of measured runs (watched and not). "
            + "Default: ${DEFAULT-VALUE}.")
    int pairs;

    @Override
    public Integer call() throws Exception {
        FibBench.Settings s = new FibBench.Settings(n, servers, producers, 1, load.toLoad(), true, false, warmup, 1,
                false, TaskBox.Isolation.IN_PROCESS, 1);
        ServerConfig config = ServerConfig.defaults().withName("bench");
        String jmx = JmxAgent.start("127.0.0.1", "127.0.0.1", 0, config.tls());
        AtomicLong reads = new AtomicLong();
        try (LocalCluster cluster = LocalCluster.start(config.withJmx(jmx), servers, producers, 1, true, false,
                TaskBox.inProcess(), false);
             Consumer consumer = cluster.consumer();
             WebEndpoint web = WebEndpoint.start("127.0.0.1", 0);
             StatusReader reader = new StatusReader(config.tls(), jmx)) {
            web.dashboard(() -> reader.view(cluster.server()).json()); // as cx server serves it
            HttpClient http = HttpClient.newHttpClient();
            Thread warming = Thread.ofPlatform().daemon().start(() -> watch(http, web, reads)); // its code warms too
            for (int i = 0; i < warmup; i++) {
                System.err.printf("warm-up %d/%d ...%n", i + 1, warmup);
                FibBench.measure(s, consumer, cluster);
            }
            warming.interrupt();
            warming.join();
            reads.set(0);
            List<FibBench.Outcome> quiet = new ArrayList<>();
            List<FibBench.Outcome> watched = new ArrayList<>();
            for (int i = 0; i < 2 * pairs; i++) {
                boolean watching = FibBench.abOn(i);
                Thread watcher = watching ? Thread.ofPlatform().daemon().start(() -> watch(http, web, reads)) : null;
                FibBench.Outcome o = FibBench.measure(s, consumer, cluster);
                if (watcher != null) {
                    watcher.interrupt();
                    watcher.join();
                }
                (watching ? watched : quiet).add(o);
                System.err.printf("run %d/%d, %s: %s%n", i + 1, 2 * pairs, watching ? "watched" : "quiet",
                        FibBench.describe(o));
            }
            FibBench.Outcome off = FibBench.median(quiet);
            FibBench.Outcome on = FibBench.median(watched);
            out().printf(Locale.ROOT, "F(%d), %d servers, %d producers: quiet %.0f tasks/s; watched (dashboard and "
                    + "metrics read every second, %d reads) %.0f tasks/s; watched/quiet %.3f (medians of %d)%n", n,
                    servers, producers, off.tasksPerS(), reads.get(), on.tasksPerS(), on.tasksPerS() / off.tasksPerS(),
                    pairs);
        }
        return 0;
    }

    /** An open dashboard page and a scraper: each reads once a second until interrupted. */
    private static void watch(HttpClient http, WebEndpoint web, AtomicLong reads) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                for (String path : List.of("status.json", "metrics")) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(web.base("127.0.0.1")
                            + path)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
                    }
                    reads.incrementAndGet();
                }
                Thread.sleep(1000);
            }
        } catch (InterruptedException e) {
            // the run is over
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
