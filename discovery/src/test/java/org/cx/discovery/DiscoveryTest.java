package org.cx.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.cx.testing.Await;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A real River lookup service on loopback, on the JDK the build runs, without a SecurityManager. */
class DiscoveryTest {

    @Test
    void registeredServicesAreFoundWithTheirAttributesAndLeaveWhenCancelled() throws Exception {
        try (LookupService lookup = LookupService.start("127.0.0.1", 0);
             RiverDiscovery discovery = RiverDiscovery.connect(lookup.address())) {
            assertEquals(List.of(), discovery.lookup(Discovery.TASK_SERVER));
            ServiceRecord server = new ServiceRecord(Discovery.TASK_SERVER, "s1", "127.0.0.1:7070", 0, 5, 2);
            Discovery.Registration registration = discovery.register(server);
            discovery.register(ServiceRecord.of(Discovery.NETWORK, "net", "127.0.0.1:7070"));
            assertEquals(List.of(server), discovery.lookup(Discovery.TASK_SERVER));
            assertEquals(1, discovery.lookup(Discovery.NETWORK).size());

            ServiceRecord moved = new ServiceRecord(Discovery.TASK_SERVER, "s1", "127.0.0.1:7070", 2, 9, 3);
            registration.update(moved);
            assertEquals(List.of(moved), discovery.lookup(Discovery.TASK_SERVER));

            registration.close();
            assertEquals(List.of(), discovery.lookup(Discovery.TASK_SERVER));
        }
    }

    /**
     * Multicast discovery only when asked for: a lookup service started with it is found by {@code --lookup
     * multicast}; one started without it does not answer, and the error says to use HOST:PORT. Skipped (with the
     * reason) on hosts whose network carries no multicast.
     */
    @Test
    void multicastFindsOnlyALookupServiceThatWasAskedToAnswerIt() throws Exception {
        Assumptions.assumeTrue(multicastLoopsBack(), "this host does not deliver multicast to itself: nothing to test");
        Duration lease = Duration.ofSeconds(10);
        try (LookupService lookup = LookupService.start("127.0.0.1", 0, true);
             RiverDiscovery discovery = RiverDiscovery.connect(RiverDiscovery.MULTICAST, lease, Duration.ofSeconds(20))) {
            assertEquals(lookup.address(), discovery.lookupAddress());
            discovery.register(ServiceRecord.of(Discovery.TASK_SERVER, "found-by-multicast", "127.0.0.1:7072"));
            try (RiverDiscovery unicast = RiverDiscovery.connect(lookup.address())) {
                assertEquals(1, unicast.lookup(Discovery.TASK_SERVER).size(), "the same lookup service");
            }
        }
        if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/net/udp"))) {
            // A lookup service still answering multicast would be found below. The lookup service's close waits for
            // River; the client's multicast discovery may take a moment longer to let go of its socket.
            Await.until("no UDP socket on port 4160 after close", Duration.ofSeconds(10), () -> {
                try {
                    return ourUdpSocketsOnTheDiscoveryPort().isEmpty();
                } catch (IOException e) {
                    return false;
                }
            });
        }
        try (LookupService quiet = LookupService.start("127.0.0.1", 0)) {
            IOException e = assertThrows(IOException.class,
                    () -> RiverDiscovery.connect(RiverDiscovery.MULTICAST, lease, Duration.ofSeconds(3)));
            assertTrue(e.getMessage().contains("--lookup HOST:PORT"), e.getMessage());
            try (RiverDiscovery unicast = RiverDiscovery.connect(quiet.address())) {
                assertEquals(List.of(), unicast.lookup(Discovery.TASK_SERVER), "unicast still works");
            }
        }
    }

    /** Whether a datagram sent to River's announcement group comes back to this host within a second. */
    private static boolean multicastLoopsBack() {
        InetAddress group;
        try {
            group = InetAddress.getByName("224.0.1.84");
        } catch (IOException e) {
            return false;
        }
        try (MulticastSocket receiver = new MulticastSocket(0); DatagramSocket sender = new DatagramSocket()) {
            receiver.joinGroup(new InetSocketAddress(group, 0), null);
            receiver.setSoTimeout(1000);
            byte[] probe = "cx-probe".getBytes(StandardCharsets.UTF_8);
            sender.send(new DatagramPacket(probe, probe.length, group, receiver.getLocalPort()));
            DatagramPacket in = new DatagramPacket(new byte[64], 64);
            receiver.receive(in);
            return true;
        } catch (IOException e) {
            System.out.println("multicast probe: " + e);
            return false;
        }
    }

    @Test
    void aServiceWhoseProcessStopsRenewingLeavesWithinItsLease() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (LookupService lookup = LookupService.start("127.0.0.1", 0);
             RiverDiscovery observer = RiverDiscovery.connect(lookup.address())) {
            RiverDiscovery dying = RiverDiscovery.connect(lookup.address(), lease, Duration.ofSeconds(10));
            dying.register(ServiceRecord.of(Discovery.TASK_SERVER, "doomed", "127.0.0.1:7071"));
            assertEquals(1, observer.lookup(Discovery.TASK_SERVER).size());
            // Renewed every third of the lease: after four renewals the first lease has long run out.
            Await.until("four lease renewals", Duration.ofSeconds(30), () -> dying.renewed() >= 4);
            assertEquals(1, observer.lookup(Discovery.TASK_SERVER).size(), "renewed while alive");
            long stopped = System.nanoTime();
            dying.close(); // stops renewing, like a killed process
            Await.until("the registration expired", Duration.ofSeconds(30), () -> {
                try {
                    return observer.lookup(Discovery.TASK_SERVER).isEmpty();
                } catch (IOException e) {
                    return false;
                }
            });
            long goneMs = (System.nanoTime() - stopped) / 1_000_000;
            System.out.println("registration gone " + goneMs + " ms after renewals stopped (lease " + lease + ")");
            assertTrue(goneMs < lease.toMillis() * 2 + 1_000, "gone after " + goneMs + " ms");
        }
    }

    /** A unicast lookup service listens on its host's TCP ports only: no UDP socket on the discovery port. */
    @Test
    void aUnicastLookupServiceOpensNoMulticastSocket() throws Exception {
        Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/net/udp")),
                "no /proc here to read sockets from");
        try (LookupService lookup = LookupService.start("127.0.0.1", 0)) {
            List<String> onDiscoveryPort = ourUdpSocketsOnTheDiscoveryPort();
            assertTrue(onDiscoveryPort.isEmpty(), "UDP sockets on port 4160: " + onDiscoveryPort);
            assertTrue(lookup.port() > 0);
        }
    }

    /** This process's UDP sockets bound to port 4160, as lines of {@code /proc/self/net/udp[6]}. */
    private static List<String> ourUdpSocketsOnTheDiscoveryPort() throws IOException {
        java.util.Set<String> ours = new java.util.HashSet<>();
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            for (java.nio.file.Path fd : (Iterable<java.nio.file.Path>) fds::iterator) {
                try {
                    String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        ours.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        List<String> onDiscoveryPort = new java.util.ArrayList<>();
        for (String file : List.of("/proc/self/net/udp", "/proc/self/net/udp6")) {
            java.nio.file.Path p = java.nio.file.Path.of(file);
            if (!java.nio.file.Files.isReadable(p)) {
                continue;
            }
            for (String line : java.nio.file.Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                // local_address is HEX_IP:HEX_PORT; 4160 is 0x1040; the inode is the tenth field
                if (f.length > 9 && f[1].endsWith(":1040") && ours.contains(f[9])) {
                    onDiscoveryPort.add(line.trim());
                }
            }
        }
        return onDiscoveryPort;
    }

    @Test
    void noLookupServiceIsAClearError() {
        IOException e = assertThrows(IOException.class,
                () -> RiverDiscovery.connect("127.0.0.1:1", RiverDiscovery.DEFAULT_LEASE, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("no lookup service answers at 127.0.0.1:1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RiverDiscovery.connect("nonsense"));
    }

    @Test
    void thePatchedRiverClassNoLongerNamesTheRemovedClass() throws Exception {
        byte[] original;
        try (InputStream in = DiscoveryTest.class.getClassLoader()
                .getResourceAsStream(RiverCompat.UTIL.replace('.', '/') + ".class")) {
            original = in.readAllBytes();
        }
        String activation = "java/rmi/activation/ActivationID";
        assertTrue(new String(original, StandardCharsets.ISO_8859_1).contains(activation));
        byte[] patched = RiverCompat.patch(original);
        assertFalse(new String(patched, StandardCharsets.ISO_8859_1).contains(activation));
        assertEquals(original.length - activation.length() + "java/lang/Object".length(), patched.length);
    }
}
