package org.cx.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import org.cx.security.Authority;
import org.cx.security.CredentialRole;
import org.cx.security.RevocationList;
import org.cx.security.Tls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real lookup service: registrations nobody of the network signed are skipped. */
class NetworksTest {
    @TempDir
    Path dir;

    @Test
    void aProducerSkipsRegistrationsNoServerOfItsNetworkSigned() throws Exception {
        Authority authority = Authority.create(dir.resolve("ca"), "test");
        Tls server = Tls.of(authority.issue(CredentialRole.SERVER, "s1", Duration.ofDays(1)), RevocationList.none());
        Tls producer = Tls.of(authority.issue(CredentialRole.PRODUCER, "p1", Duration.ofDays(1)),
                RevocationList.none());
        try (LookupService lookup = LookupService.start("127.0.0.1", 0);
             RiverDiscovery discovery = RiverDiscovery.connect(lookup.address())) {
            // Fewer producers than the real server: a producer that trusted entries would pick these.
            discovery.register(new ServiceRecord(Discovery.TASK_SERVER, "fake", "127.0.0.1:1", 0, 0, 0));
            discovery.register(Networks.signed(new ServiceRecord(Discovery.TASK_SERVER, "posing", "127.0.0.1:2", 0,
                    0, 0), producer));
            ServiceRecord real = Networks.signed(ServiceRecord.of(Discovery.TASK_SERVER, "s1", "127.0.0.1:7070"),
                    server);
            discovery.register(new ServiceRecord(real.kind(), real.name(), real.address(), 0, 0, 5, real.signer(),
                    real.signature()));
            assertEquals("127.0.0.1:7070", Networks.serverForProducer(discovery, lookup.address(), producer));
            assertEquals("127.0.0.1:1", Networks.serverForProducer(discovery, lookup.address(), null),
                    "with plain connections every entry counts");
        }
    }
}
