package org.cx.accounting;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.cx.fs.FsException;
import org.cx.security.Tls;
import org.cx.wire.Usage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a task server's usage batches to the accounting service, in order, each until the service acknowledges it:
 * unchanged and under the id it was given, however often it must be sent again (the service recognises a batch it
 * recorded before). On the acknowledgement the server is told, so that its mirrors stop holding the batch. While the
 * service cannot be reached, batches wait here (one a second, each as small as the number of distinct rows).
 */
public final class UsageSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UsageSender.class);

    private record Batch(String id, List<Usage> rows, Runnable acknowledged) {
    }

    private final String caller;
    private final Supplier<String> address;
    private final Tls tls;
    private final Duration retry;
    private final LinkedBlockingDeque<Batch> waiting = new LinkedBlockingDeque<>();
    private final Thread thread;
    private AccountingClient client;
    private boolean failing;
    private volatile boolean closed;
    private volatile boolean sending;
    private volatile long acknowledged;

    /**
     * @param caller  the name said with plain connections (the server's)
     * @param address where the accounting service is (asked again after every failure)
     * @param tls     the server's credential, or null for plain connections
     * @param retry   how long to wait before sending a batch again after a failure
     */
    public UsageSender(String caller, Supplier<String> address, Tls tls, Duration retry) {
        this.caller = caller;
        this.address = address;
        this.tls = tls;
        this.retry = retry;
        this.thread = new Thread(this::run, "cx-usage-sender");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues batch {@code id}; {@code acknowledged} runs once the service has it. Never blocks. */
    public void send(String id, List<Usage> rows, Runnable acknowledged) {
        waiting.add(new Batch(id, rows, acknowledged));
    }

    /** Batches the service has acknowledged. */
    public long acknowledged() {
        return acknowledged;
    }

    /** Whether nothing waits to be sent or acknowledged. */
    public boolean idle() {
        return waiting.isEmpty() && !sending;
    }

    private void run() {
        while (!closed || !waiting.isEmpty()) {
            Batch b;
            try {
                b = waiting.pollFirst(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue; // closing: send what waits once more
            }
            if (b == null) {
                continue;
            }
            sending = true;
            if (deliver(b)) {
                b.acknowledged().run();
                sending = false;
            } else {
                waiting.addFirst(b);
                sending = false;
                if (closed) {
                    return; // what is left is the mirrors' to send
                }
                try {
                    Thread.sleep(retry.toMillis());
                } catch (InterruptedException e) {
                    // closing: one more try
                }
            }
        }
    }

    /** Sends {@code b} once; whether the service acknowledged it. */
    private boolean deliver(Batch b) {
        try {
            if (client == null) {
                client = AccountingClient.connect(address.get(), tls, caller);
            }
            client.record(b.id(), b.rows());
            acknowledged++;
            if (failing) {
                LOG.info("usage reaches the accounting service at {} again", client.address());
                failing = false;
            }
            return true;
        } catch (FsException | RuntimeException e) {
            if (!failing) {
                LOG.warn("cannot send usage to the accounting service ({}); it is kept and sent again every {} ms",
                        e.getMessage(), retry.toMillis());
                failing = true;
            }
            if (client != null) {
                client.close();
                client = null;
            }
            return false;
        }
    }

    /** Sends what waits, one try each, and stops. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (client != null) {
            client.close();
        }
    }
}
