package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby name service's thread: it follows the primary (takes its snapshot, then applies and forces every batch
 * of its journal and acknowledges it) and takes over when the primary has been unreachable for
 * {@link #TAKEOVER_AFTER}, but only once it has followed it: a standby started before its primary waits for it.
 */
final class Follower implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Follower.class);
    /** How long the primary may be silent or unreachable before the standby takes over. */
    static final Duration TAKEOVER_AFTER = Duration.ofSeconds(3);

    private final NameService service;
    private final String primary;
    private final Tls tls;

    Follower(NameService service, String primary, Tls tls) {
        this.service = service;
        this.primary = primary;
        this.tls = tls;
    }

    @Override
    public void run() {
        long lastContact = System.nanoTime();
        boolean followed = false;
        String lastProblem = null;
        while (!service.closed() && service.role() == NameService.Role.STANDBY) {
            try (FsConnection c = FsConnection.open(primary, tls, Caller.SERVICE.name(), service.epoch())) {
                c.timeout((int) TAKEOVER_AFTER.toMillis());
                ObjectNode start = c.call(Json.op("follow").put("seq", service.store().seq()));
                service.install(start.get("snapshot"), start.path("epoch").asLong());
                LOG.info("standby name service follows {} from record {}", primary, service.store().seq());
                followed = true;
                lastProblem = null;
                lastContact = System.nanoTime();
                while (!service.closed()) {
                    ObjectNode batch = c.reply();
                    lastContact = System.nanoTime();
                    NameStore store = service.store();
                    for (JsonNode record : batch.path("records")) {
                        store.replicate(record);
                    }
                    store.sync();
                    store.takeCommitted();
                    c.send(Json.op("ack").put("seq", store.seq()));
                }
            } catch (IOException e) {
                if (!java.util.Objects.equals(e.getMessage(), lastProblem)) {
                    LOG.warn("standby name service: {} (the primary {}){}", e.getMessage(), primary,
                            followed ? "" : "; waiting for it to follow it first");
                    lastProblem = e.getMessage();
                }
            }
            if (followed && System.nanoTime() - lastContact > TAKEOVER_AFTER.toNanos()) {
                try {
                    service.takeOver(primary);
                    return;
                } catch (IOException e) {
                    LOG.error("standby name service cannot record its new epoch: it stays standby", e);
                    followed = false;
                }
            }
            try {
                Thread.sleep(200); // between attempts to reach the primary
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
