package org.cx.system;

import java.io.IOException;
import java.time.Duration;
import org.cx.harness.LocalCluster;
import org.cx.server.ServerConfig;

/** Cluster set-ups shared by the system tests. */
final class Clusters {
    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private Clusters() {
    }

    /** A server that audits applied effects, with {@code producers} in-process producers. */
    static LocalCluster audited(int producers, int workers, boolean prefetch) throws IOException, InterruptedException {
        return LocalCluster.start(ServerConfig.defaults().withName("test").withAuditEffects(true), producers, workers,
                prefetch);
    }
}
