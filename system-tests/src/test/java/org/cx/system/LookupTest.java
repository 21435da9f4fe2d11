package org.cx.system;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.examples.fib.Fib;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Discovery with real processes: {@code cx lookup}, three {@code cx server --lookup} and a {@code cx producer
 * --lookup}, on the JDK the build runs (no SecurityManager anywhere).
 */
class LookupTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void serversRegisterWithAttributesProducersFindThemAndTheDeadLeaveWithinTheirLease() throws Exception {
        String lookup = "127.0.0.1:" + ServerProcesses.freePort();
        List<ChildProcess> servers = new ArrayList<>();
        try (ChildProcess lookupService = ChildProcess.start("lookup", Cx.class.getName(), "lookup", "--port",
                lookup.substring(lookup.indexOf(':') + 1));
             RiverDiscovery discovery = connect(lookupService, lookup)) {
            String root = null;
            for (int i = 0; i < 3; i++) {
                List<String> args = new ArrayList<>(List.of("server", "--port", "0", "--name", "s" + i, "--lookup",
                        lookup, "--lease", LEASE.toString()));
                if (root != null) {
                    args.addAll(List.of("--join", root));
                }
                ChildProcess server = ChildProcess.start("s" + i, Cx.class.getName(), args.toArray(String[]::new));
                servers.add(server);
                String line = server.awaitLine("listening on", WAIT);
                if (root == null) {
                    root = line.substring(line.indexOf("listening on ") + 13, line.indexOf(';'));
                }
            }
            List<ServiceRecord> registered = Await.value("three servers in their places", WAIT,
                    () -> lookup(discovery, Discovery.TASK_SERVER),
                    found -> found.size() == 3 && found.stream().allMatch(s -> s.position() >= 0));
            registered = new ArrayList<>(registered);
            registered.sort(Comparator.comparingInt(ServiceRecord::position));
            assertEquals(List.of(0, 1, 2), registered.stream().map(ServiceRecord::position).toList());
            assertEquals(List.of("s0", "s1", "s2"), registered.stream().map(ServiceRecord::name).sorted().toList());
            assertEquals(root, registered.get(0).address());
            assertEquals(List.of(root), lookup(discovery, Discovery.NETWORK).stream().map(ServiceRecord::address)
                    .toList(), "the primary root registers the network");

            try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer", "--lookup",
                    lookup, "--workers", "2");
                 Consumer consumer = Consumer.connect(lookup(discovery, Discovery.NETWORK).get(0).address())) {
                producer.awaitLine("attached to", WAIT);
                // The only producer in the network: the result proves it runs tasks.
                assertEquals(Fib.value(15), consumer.submit(new Fib(15)).result().get(60, TimeUnit.SECONDS));
                producer.awaitLine("ran its first task", WAIT);

                // The console, from the MBeans of the three server processes and the producer process.
                StringWriter out = new StringWriter();
                CommandLine cx = Cx.commandLine();
                cx.setOut(new PrintWriter(out));
                assertEquals(0, cx.execute("status", "--lookup", lookup, "--once"));
                String view = out.toString();
                System.out.print(view);
                assertTrue(view.contains("3 server(s), 1 producer(s)"), view);
                for (ServiceRecord s : registered) {
                    assertTrue(view.lines().anyMatch(l -> l.contains(s.name()) && l.contains(s.address())), view);
                }
                String producerRow = view.lines().filter(l -> l.startsWith("producer ") && !l.contains("workers"))
                        .findFirst().orElseThrow();
                long tasksRun = Long.parseLong(producerRow.trim().split("\\s+")[4]);
                assertEquals(Fib.taskCount(15), tasksRun, "the only producer ran every task: " + producerRow);
            }

            ServiceRecord victim = registered.get(2);
            ChildProcess victimProcess = servers.stream()
                    .filter(p -> p.output().stream().anyMatch(l -> l.contains("listening on " + victim.address())))
                    .findFirst().orElseThrow();
            long killed = System.nanoTime();
            victimProcess.kill();
            Await.until("the killed server leaves the lookup service", WAIT,
                    () -> lookup(discovery, Discovery.TASK_SERVER).stream()
                            .noneMatch(s -> s.address().equals(victim.address())));
            long goneMs = (System.nanoTime() - killed) / 1_000_000;
            System.out.println("killed server left the lookup service after " + goneMs + " ms (lease " + LEASE + ")");
            assertTrue(goneMs <= LEASE.toMillis() * 2 + 1_000, "gone only after " + goneMs + " ms");
        } finally {
            servers.forEach(ChildProcess::close);
        }
    }

    private static RiverDiscovery connect(ChildProcess lookupService, String lookup) throws IOException {
        lookupService.awaitLine("lookup service listening on", WAIT);
        return RiverDiscovery.connect(lookup);
    }

    private static List<ServiceRecord> lookup(RiverDiscovery discovery, String kind) {
        try {
            return discovery.lookup(kind);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
