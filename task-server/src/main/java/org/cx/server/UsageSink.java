package org.cx.server;

import java.util.List;
import org.cx.wire.Usage;

/** Where a server's usage batches go: to the accounting service, through a sender that retries. */
@FunctionalInterface
public interface UsageSink {
    /**
     * Sends batch {@code id} until the service acknowledges it, then runs {@code acknowledged} (on any thread). Must
     * not block.
     */
    void send(String id, List<Usage> rows, Runnable acknowledged);
}
