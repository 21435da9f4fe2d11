package org.cx.system;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A network whose servers share one process closes as a whole: no server takes the others, closing one after
 * another, for failed servers and repairs the tree (before, every multi-server benchmark ended with a cascade of
 * "primary root failed" and "server N failed" warnings).
 */
class ClusterShutdownTest {

    @Test
    void closingAWholeNetworkRepairsNothing() throws Exception {
        Logger network = (Logger) LoggerFactory.getLogger("org.cx.server.ServerNetwork");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        network.addAppender(log);
        try {
            try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("shutdown"), 3, 6, 1,
                    true)) {
                try (Consumer consumer = cluster.consumer()) {
                    // a computation first, so that the servers have links to each other and tasks have moved
                    assertEquals(Fib.value(15), consumer.submit(new Fib(15, Load.NONE)).result()
                            .get(60, TimeUnit.SECONDS));
                }
                assertEquals(3, cluster.server().network().servers());
            }
            List<String> complaints = log.list.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
            assertTrue(complaints.isEmpty(), "closing the network was taken for failures: " + complaints);
        } finally {
            network.detachAppender(log);
        }
    }
}
