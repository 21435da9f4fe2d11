package org.cx.fs;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes blobs no longer named from their file servers, on a thread of its own so that a slow or dead file server
 * never holds up the name service. A delete that fails is tried again every few seconds for a while; one that never
 * succeeds leaves the blob on its file server as an orphan.
 */
final class Reaper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
    private static final int ATTEMPTS = 30;
    private static final long RETRY_MILLIS = 2_000;

    private record Doomed(String address, String blob, int attempts) {
    }

    private final Tls tls;
    private final Deque<Doomed> queue = new ArrayDeque<>();
    private final Map<String, FsConnection> connections = new HashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    Reaper(Tls tls) {
        this.tls = tls;
        thread = new Thread(this::run, "cx-fs-reaper");
        thread.setDaemon(true);
        thread.start();
    }

    synchronized void delete(String address, String blob) {
        if (address == null) {
            LOG.warn("blob {} is on a file server not registered now: left there as an orphan", blob);
            return;
        }
        queue.add(new Doomed(address, blob, 0));
        notifyAll();
    }

    private synchronized Doomed next() throws InterruptedException {
        while (queue.isEmpty() && !closed) {
            wait();
        }
        return queue.poll();
    }

    private void run() {
        try {
            while (!closed) {
                Doomed d = next();
                if (d == null) {
                    return;
                }
                try {
                    FsConnection c = connections.get(d.address());
                    if (c == null) {
                        c = FsConnection.open(d.address(), tls, Caller.SERVICE.name());
                        connections.put(d.address(), c);
                    }
                    c.call(Json.op("delete").put("blob", d.blob()));
                } catch (FsException e) {
                    FsConnection c = connections.remove(d.address());
                    if (c != null) {
                        c.close();
                    }
                    if (e.code() == FsException.Code.EIO && d.attempts() + 1 < ATTEMPTS) {
                        retryLater(new Doomed(d.address(), d.blob(), d.attempts() + 1));
                    } else {
                        LOG.warn("cannot delete blob {} from {}: {} (left there as an orphan)", d.blob(),
                                d.address(), e.getMessage());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connections.values().forEach(FsConnection::close);
        }
    }

    private void retryLater(Doomed d) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
        synchronized (this) {
            queue.add(d);
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        thread.interrupt();
    }
}
