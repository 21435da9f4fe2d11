package org.cx.producer;

import io.netty.channel.Channel;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.security.Tls;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer's code and shared data bundles on their way: each one a computation needs comes from the disk cache if
 * it is there and still checks, else from the server in chunks; a bundle is hashed and its signer checked off the
 * event loop (other producers may share it), and the tasks parked for it then go to the cache. Event loop, but for
 * that work.
 */
final class ProducerCode {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerCode.class);

    /** What the producer does with bundles that arrive. */
    interface Link {
        /** The connection to the server now (a bundle for an older one is dropped: the new server asks again). */
        Channel channel();

        /** Tasks whose code is here now. */
        void cache(List<ReadyTask> tasks);

        /** Sends what the producer has queued. */
        void drain();

        /** A task whose code cannot be had fails. */
        void failed(Message.TaskFailed failed);
    }

    private final String name;
    private final Tls tls;
    private final BundleFetcher bundles;
    /** Bundles kept on disk across computations and restarts, if configured. */
    private final BundleDiskCache disk;
    private final Link link;
    /** Bundles found on disk instead of fetched. */
    private final AtomicLong fromDisk = new AtomicLong();

    ProducerCode(String name, Tls tls, BundleFetcher bundles, BundleDiskCache disk, Link link) {
        this.name = name;
        this.tls = tls;
        this.bundles = bundles;
        this.disk = disk;
        this.link = link;
    }

    long fromDisk() {
        return fromDisk.get();
    }

    /** Tasks of {@code c.computation()} run from bundle {@code c.bundle()}: bind it, or fetch it first. */
    void code(Message.Code c) {
        for (Message.FetchBundle fetch : bundles.code(c.computation(), c.bundle())) {
            if (disk.has(fetch.bundle())) {
                loadFromDisk(fetch);
            } else {
                link.channel().write(fetch);
            }
        }
    }

    /** Reads a bundle from the disk cache off the event loop, checks it, and fetches it after all if that fails. */
    private void loadFromDisk(Message.FetchBundle fetch) {
        Channel ch = link.channel();
        ForkJoinPool.commonPool().execute(() -> {
            CodeBundle bundle = disk.load(fetch.bundle());
            try {
                if (bundle != null) {
                    bundle.signer(tls); // as for one from the network
                }
            } catch (CodeBundle.InvalidBundleException e) {
                LOG.warn("producer {}: bundle {} on disk: {}", name, CodeBundle.shortHash(fetch.bundle()),
                        e.getMessage());
                bundle = null;
            }
            CodeBundle found = bundle;
            ch.eventLoop().execute(() -> {
                if (link.channel() != ch) {
                    return; // failed over meanwhile: the new server says again what is needed
                }
                if (found == null) {
                    ch.writeAndFlush(fetch);
                    return;
                }
                fromDisk.incrementAndGet();
                link.cache(bundles.arrived(found));
                link.drain();
            });
        });
    }

    /** A chunk of a bundle from the server; the last one has the bundle checked and its tasks cached. */
    void chunk(Message.BundleChunk chunk) {
        String hash = chunk.bundle();
        BundleFetcher.Assembled all;
        try {
            all = bundles.chunk(chunk);
        } catch (CodeBundle.InvalidBundleException e) {
            unavailable(hash, e.getMessage());
            return;
        }
        if (all == null) {
            return;
        }
        // Hashing a large bundle takes a while: not on the event loop, which other producers may share.
        Channel ch = link.channel();
        ForkJoinPool.commonPool().execute(() -> {
            CodeBundle bundle = null;
            String problem = null;
            try {
                bundle = CodeBundle.verified(hash, all.bytes(), all.signed());
                bundle.signer(tls); // code runs only if a user of this network signed it
            } catch (CodeBundle.InvalidBundleException e) {
                problem = e.getMessage();
            }
            CodeBundle verified = bundle;
            String why = problem;
            ch.eventLoop().execute(() -> {
                if (link.channel() != ch) {
                    return; // failed over meanwhile: the new server says again what is needed
                }
                if (verified != null) {
                    link.cache(bundles.arrived(verified));
                    if (disk.enabled()) {
                        ForkJoinPool.commonPool().execute(() -> disk.store(verified));
                    }
                } else {
                    unavailable(hash, why);
                }
                link.drain();
            });
        });
    }

    /** Bundle {@code hash} cannot be had: every task waiting for it fails, saying why. */
    void unavailable(String hash, String reason) {
        for (Message.TaskFailed failed : bundles.unavailable(hash, reason)) {
            link.failed(failed);
        }
    }
}
