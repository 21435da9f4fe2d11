package org.cx.system;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.discovery.Discovery;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.examples.fib.Fib;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A network on several loopback addresses (127.0.0.2, 127.0.0.3 …), as on several machines: each server is reached
 * at the address it was bound to or told to advertise, never at another's; {@code --join lookup} founds the network
 * or joins the one registered; a server told to join a member that has died finds the network through the lookup
 * service; a consumer that finds the dead root still registered there reaches the network through the other members.
 */
class AddressesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration LEASE = Duration.ofSeconds(30); // outlives the root's death for the whole test

    @Test
    void eachServerIsReachedAtItsOwnAddressAndADeadRootOrJoinTargetIsRoutedAround() throws Exception {
        int lookupPort = ServerProcesses.freePort();
        String lookup = "127.0.0.6:" + lookupPort;
        List<ChildProcess> servers = new ArrayList<>();
        try (ChildProcess lookupService = ChildProcess.start("lookup", Cx.class.getName(), "lookup", "--port",
                String.valueOf(lookupPort), "--host", "0.0.0.0", "--advertise", "127.0.0.6")) {
            assertTrue(lookupService.awaitLine("lookup service listening on", WAIT).endsWith(lookup));
            try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
                servers.add(server("s0", lookup, "--host", "127.0.0.2", "--join", "lookup")); // none yet: founds
                String root = "127.0.0.2:" + port(servers.get(0));
                servers.add(server("s1", lookup, "--host", "127.0.0.3", "--join", root, "--http-port", "0"));
                servers.add(server("s2", lookup, "--host", "0.0.0.0", "--advertise", "127.0.0.4", "--join",
                        "lookup"));
                Map<String, String> registered = Await.value("three servers placed, each at its own address", WAIT,
                        () -> placed(discovery), found -> found.size() == 3);
                System.out.println("registered: " + registered);
                assertEquals("127.0.0.2", host(registered.get("s0")));
                assertEquals("127.0.0.3", host(registered.get("s1")));
                assertEquals("127.0.0.4", host(registered.get("s2")), "the advertised host, not the bound 0.0.0.0");
                assertTrue(servers.get(2).output().stream().anyMatch(l -> l.contains("JMX: ")
                        && l.contains("rmi://127.0.0.4:")), "its JMX connector is advertised at the same host: "
                        + servers.get(2).output());

                // Every server's view of the network names the others by their own addresses.
                Cli.Run status = Cli.cx("status", "--lookup", lookup, "--json", "--once");
                assertEquals(0, status.exit(), status.err());
                for (String address : registered.values()) {
                    assertTrue(status.out().contains("\"" + address + "\""), address + " in " + status.out());
                }
                assertTrue(!status.out().contains("127.0.0.1:" + port(servers.get(0))), status.out());

                try (ChildProcess producer = ChildProcess.start("producer", Cx.class.getName(), "producer",
                        "--lookup", lookup, "--workers", "2")) {
                    producer.awaitLine("attached to", WAIT);
                    assertFib(lookup, 15);

                    // s1's Prometheus endpoint, at its own address, says what its MBeans say.
                    String web = servers.get(1).awaitLine("metrics: ", WAIT);
                    String url = web.substring(web.lastIndexOf("http://"));
                    assertTrue(url.startsWith("http://127.0.0.3:"), url);
                    String scraped = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                            .newBuilder(java.net.URI.create(url)).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString()).body();
                    assertTrue(scraped.contains("cx_task_server_position{name=\"s1\""), scraped);

                    servers.get(0).kill(); // the root: its registrations outlive it (lease 30 s)
                    Await.until("the network repaired after its root died", WAIT,
                            () -> Cli.cx("run", "fib", "--n", "10", "--server", registered.get("s1")).exit() == 0);
                    assertTrue(placedRaw(discovery).containsValue(registered.get("s0")),
                            "the dead root is still registered, so the consumer must skip it");
                    assertFib(lookup, 14);
                    Tls user = CxHome.local(CredentialRole.USER, false);
                    List<String> members = new ArrayList<>(Networks.members(lookup, user));
                    assertTrue(members.remove(registered.get("s0")), "the dead root is listed: " + members);
                    members.addFirst(registered.get("s0"));
                    try (Consumer consumer = Consumer.connect(members, user)) { // the API skips the dead one too
                        assertEquals(Fib.value(12), consumer.submit(new Fib(12)).result().get(60, TimeUnit.SECONDS));
                    }

                    // Told to join the dead root; the lookup service names the living members.
                    servers.add(server("s3", lookup, "--host", "127.0.0.5", "--join", registered.get("s0")));
                    Await.until("s3 joined through the members registered at the lookup service", WAIT,
                            () -> placed(discovery).containsKey("s3"));
                    assertEquals("127.0.0.5", host(placed(discovery).get("s3")));
                    assertTrue(servers.get(3).output().stream().anyMatch(l -> l.contains("registered at the lookup "
                            + "service")), "it said where it asked instead: " + servers.get(3).output());
                    assertFib(lookup, 13);
                }
            }
        } finally {
            servers.forEach(ChildProcess::close);
        }
    }

    private static ChildProcess server(String name, String lookup, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("server", "--port", "0", "--name", name, "--lookup", lookup,
                "--lease", LEASE.toString()));
        args.addAll(List.of(more));
        ChildProcess server = ChildProcess.start(name, Cx.class.getName(), args.toArray(String[]::new));
        server.awaitLine("listening on", WAIT);
        return server;
    }

    /** The port in the server's "listening on HOST:PORT" line. */
    private static int port(ChildProcess server) {
        String line = server.output().stream().filter(l -> l.contains("listening on ")).findFirst().orElseThrow();
        String address = line.substring(line.indexOf("listening on ") + 13).split("[ ;]")[0];
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    private static void assertFib(String lookup, int n) {
        Cli.Run run = Cli.cx("run", "fib", "--n", String.valueOf(n), "--lookup", lookup);
        System.out.print(run.out() + run.err());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("= " + Fib.value(n)) || run.out().contains(String.valueOf(Fib.value(n))),
                run.out());
    }

    private static String host(String address) {
        return address.substring(0, address.lastIndexOf(':'));
    }

    /** Name → address of the servers registered with a place in the tree. */
    private static Map<String, String> placed(Discovery discovery) {
        return lookup(discovery).stream().filter(r -> r.position() >= 0)
                .collect(Collectors.toMap(ServiceRecord::name, ServiceRecord::address, (a, b) -> a));
    }

    private static Map<String, String> placedRaw(Discovery discovery) {
        return lookup(discovery).stream()
                .collect(Collectors.toMap(ServiceRecord::name, ServiceRecord::address, (a, b) -> a));
    }

    private static List<ServiceRecord> lookup(Discovery discovery) {
        try {
            return discovery.lookup(Discovery.TASK_SERVER);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
