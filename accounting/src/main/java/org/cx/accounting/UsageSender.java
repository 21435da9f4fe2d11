package org.cx.accounting;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.cx.fs.FsException;
import org.cx.security.Tls;
import org.cx.wire.Usage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a task server's usage to the accounting service, exactly once: usage handed in is added to an open batch;
 * every period the open batch is sealed with an id of its own and sent until the service acknowledges it,
 * unchanged and under the same id however often it must be sent again (the service recognises a batch it recorded
 * before). While a sealed batch waits, usage goes on adding to the next open one, so what is held stays as small as
 * the number of distinct rows.
 */
public final class UsageSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UsageSender.class);

    private final String sender;
    private final Supplier<String> address;
    private final Tls tls;
    private final Duration period;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final Thread thread;
    /** The open batch, by key; guarded by this. */
    private Map<Key, Usage> open = new LinkedHashMap<>();
    /** The sealed batch not yet acknowledged, and its id; the sending thread's. */
    private List<Usage> sealed;
    private String sealedId;
    private long sequence;
    private AccountingClient client;
    private boolean failing;
    private volatile boolean closed;
    private volatile long acknowledged;

    private record Key(long interval, Usage.Kind kind, String consumer, long computation, String producer,
                       String contributor, String hostType) {
        static Key of(Usage u) {
            return new Key(u.intervalStart(), u.kind(), u.consumer(), u.computation(), u.producer(), u.contributor(),
                    u.hostType());
        }
    }

    /**
     * @param sender  the sending server's name, part of every batch's id
     * @param address where the accounting service is (asked again after every failure)
     * @param tls     the server's credential, or null for plain connections
     * @param period  how often a batch is sealed and sent
     */
    public UsageSender(String sender, Supplier<String> address, Tls tls, Duration period) {
        this.sender = sender;
        this.address = address;
        this.tls = tls;
        this.period = period;
        this.thread = new Thread(this::run, "cx-usage-sender");
        thread.setDaemon(true);
        thread.start();
    }

    /** Adds {@code rows} to the open batch. */
    public synchronized void add(List<Usage> rows) {
        for (Usage u : rows) {
            open.merge(Key.of(u), u, UsageSender::sum);
        }
    }

    private static Usage sum(Usage a, Usage b) {
        return new Usage(a.intervalStart(), a.kind(), a.consumer(), a.computation(), a.producer(), a.contributor(),
                a.hostType(), a.executions() + b.executions(), a.cpuNanos() + b.cpuNanos(),
                a.wallNanos() + b.wallNanos(), a.bytesIn() + b.bytesIn(), a.bytesOut() + b.bytesOut(),
                a.messages() + b.messages());
    }

    /** Batches the service has acknowledged. */
    public long acknowledged() {
        return acknowledged;
    }

    /** Whether nothing is waiting to be sent or acknowledged. */
    public synchronized boolean idle() {
        return open.isEmpty() && sealed == null;
    }

    private void run() {
        while (!closed) {
            try {
                Thread.sleep(period.toMillis());
            } catch (InterruptedException e) {
                // closing: send what is held once more
            }
            flush();
        }
    }

    /** Seals the open batch if none waits, and sends the waiting one; on failure it stays for the next period. */
    private void flush() {
        if (sealed == null) {
            synchronized (this) {
                if (open.isEmpty()) {
                    return;
                }
                sealed = new ArrayList<>(open.values());
                open = new LinkedHashMap<>();
            }
            sealedId = sender + "/" + run + "/" + ++sequence;
        }
        try {
            if (client == null) {
                client = AccountingClient.connect(address.get(), tls, sender);
            }
            client.record(sealedId, sealed);
            sealed = null;
            acknowledged++;
            if (failing) {
                LOG.info("usage reaches the accounting service at {} again", client.address());
                failing = false;
            }
        } catch (FsException | RuntimeException e) {
            if (!failing) {
                LOG.warn("cannot send usage to the accounting service ({}); it is kept and sent again every {} ms",
                        e.getMessage(), period.toMillis());
                failing = true;
            }
            if (client != null) {
                client.close();
                client = null;
            }
        }
    }

    /** Sends what is held, once more, and stops. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(period.toMillis() + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (client != null) {
            client.close();
        }
    }
}
