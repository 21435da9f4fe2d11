package org.cx.producer;

import io.netty.channel.Channel;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a producer without a server gets one, on a thread of its own:
 * <ol>
 *   <li>it tries the lost server's mirror group, if it has one, for 30 s (a server taking over may need a moment);</li>
 *   <li>a producer started once then stops; a daemon asks its {@link ServerFinder} before each try and waits, with
 *       {@link Backoff back-off} from 1 s to 30 s, between tries, saying why to its listener, until a server takes
 *       it or it closes.</li>
 * </ol>
 */
final class ServerSearch {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSearch.class);
    private static final long MIRROR_GROUP_MILLIS = 30_000;
    private static final long FOUND_MILLIS = 2_000;

    /** What the producer does for the search. */
    interface Attach {
        /** A connection to the first of {@code addresses} to take the producer, trying for {@code millis}. */
        Channel connect(List<String> addresses, long millis) throws IOException;

        /** A server took the producer ({@code again}: after it had lost one). */
        void attached(Channel channel, boolean again);

        /** No server will: the producer stops. */
        void gaveUp();
    }

    private final String name;
    /** Null for a producer started once. */
    private final ServerFinder finder;
    private final Producer.Listener listener;
    private final Attach attach;
    private final CountDownLatch closed;
    private final BooleanSupplier closing;

    ServerSearch(String name, ServerFinder finder, Producer.Listener listener, Attach attach, CountDownLatch closed,
                 BooleanSupplier closing) {
        this.name = name;
        this.finder = finder;
        this.listener = listener;
        this.attach = attach;
        this.closed = closed;
        this.closing = closing;
    }

    /** Starts looking, first in {@code mirrorGroup} (empty: none). */
    void start(List<String> mirrorGroup) {
        Thread t = new Thread(() -> run(mirrorGroup), name + "-reconnect");
        t.setDaemon(true);
        t.start();
    }

    private void run(List<String> mirrorGroup) {
        if (!mirrorGroup.isEmpty()) {
            try {
                attach.attached(attach.connect(mirrorGroup, MIRROR_GROUP_MILLIS), true);
                return;
            } catch (IOException e) {
                if (!closing.getAsBoolean()) {
                    LOG.warn("producer {} found no server to fail over to: {}", name, e.getMessage());
                }
            }
        }
        if (finder == null) {
            attach.gaveUp();
            return;
        }
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), ThreadLocalRandom.current());
        while (!closing.getAsBoolean()) {
            String problem;
            try {
                List<String> found = finder.candidates();
                if (found.isEmpty()) {
                    problem = "no server is known yet";
                } else {
                    attach.attached(attach.connect(found, FOUND_MILLIS), !mirrorGroup.isEmpty());
                    return;
                }
            } catch (IOException | RuntimeException e) {
                problem = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            Duration wait = backoff.next();
            listener.waiting(problem, wait);
            try {
                if (closed.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        attach.gaveUp();
    }
}
