package org.cx.producer;

import java.net.InetSocketAddress;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;

/**
 * Producer settings, checked once.
 *
 * @param server     the task server to attach to; null for a {@link Producer#daemon}, whose finder names it
 * @param name       shown in the server's logs and status
 * @param workers    worker threads (W)
 * @param prefetch   keep tasks cached beyond the running ones (off only for experiments)
 * @param maxCached  cap on cached tasks; 256 batches enough to hide a loopback round trip behind microsecond tasks
 * @param claim      a worker runs the best ready child of the task it just finished, or a task its value just
 *                   completed, without a round trip (and keeps copies of unready tasks it stores, for that)
 * @param jmx        the JMX service URL of this producer's process, told to its server for {@code cx status};
 *                   empty if none
 * @param speed      this host's speed relative to a reference host, seen by tasks as
 *                   {@link org.cx.api.TaskContext#hostSpeed()}; synthetic loads use it to emulate mixed processor types
 * @param timeline   record every task a worker runs, with its times ({@link Producer#timeline()}); off by default
 * @param tls        this producer's credential (the server must hold a server one); null for a plain connection
 * @param box        where task code runs, and within which limits
 * @param cache      where code and shared data bundles are kept on disk ({@link BundleDiskCache.Settings#NONE}: not)
 * @param owner      when task code may run and within which caps, as the machine's owner decides
 * @param fsNames    the federated file service's name services ({@code host:port}, comma-separated) that tasks reach
 *                   through {@link org.cx.api.TaskContext#files()}, acting for their computation's owner; null: none
 */
public record ProducerConfig(InetSocketAddress server, String name, int workers, boolean prefetch, int maxCached,
                             boolean claim, String jmx, double speed, boolean timeline, Tls tls, TaskBox box,
                             BundleDiskCache.Settings cache, OwnerSettings owner, String fsNames) {

    /** Largest host speed accepted: beyond it a synthetic load is no longer a load. */
    public static final double MAX_SPEED = 1000;

    public ProducerConfig {
        if (workers < 1 || workers > 1024) {
            throw new IllegalArgumentException("workers must be in 1..1024, got " + workers);
        }
        if (maxCached < 1) {
            throw new IllegalArgumentException("maxCached must be >= 1, got " + maxCached);
        }
        if (!(speed > 0) || speed > MAX_SPEED) {
            throw new IllegalArgumentException("speed must be in (0, " + MAX_SPEED + "], got " + speed);
        }
    }

    /** With this user's local producer credential ({@link CxHome#local}). */
    public static ProducerConfig of(InetSocketAddress server, int workers) {
        return of(server, workers, CxHome.localOrFail(CredentialRole.PRODUCER, false));
    }

    /** With {@code tls} (null: a plain connection). */
    public static ProducerConfig of(InetSocketAddress server, int workers, Tls tls) {
        return new ProducerConfig(server, "producer", workers, true, 256, true, "", 1.0, false, tls,
                TaskBox.defaults(), BundleDiskCache.Settings.NONE, OwnerSettings.NONE, null);
    }

    public ProducerConfig withName(String newName) {
        return new ProducerConfig(server, newName, workers, prefetch, maxCached, claim, jmx, speed, timeline,
                tls, box, cache, owner, fsNames);
    }

    public ProducerConfig withPrefetch(boolean on) {
        return new ProducerConfig(server, name, workers, on, maxCached, claim, jmx, speed, timeline, tls, box, cache,
                owner, fsNames);
    }

    public ProducerConfig withClaim(boolean on) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, on, jmx, speed, timeline,
                tls, box, cache, owner, fsNames);
    }

    public ProducerConfig withJmx(String url) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, url, speed, timeline,
                tls, box, cache, owner, fsNames);
    }

    public ProducerConfig withSpeed(double factor) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, factor, timeline,
                tls, box, cache, owner, fsNames);
    }

    public ProducerConfig withTls(Tls newTls) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, timeline,
                newTls, box, cache, owner, fsNames);
    }

    public ProducerConfig withTimeline(boolean on) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, on, tls, box, cache,
                owner, fsNames);
    }

    /** Keeps code and shared data bundles on disk as {@code settings} say, across computations and restarts. */
    public ProducerConfig withCache(BundleDiskCache.Settings settings) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, timeline, tls, box,
                settings, owner, fsNames);
    }

    /** Runs task code when and within what {@code settings} say. */
    public ProducerConfig withOwner(OwnerSettings settings) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, timeline, tls, box,
                cache, settings, fsNames);
    }

    /** Lets tasks reach the federated file service whose name services are {@code names} (null: none). */
    public ProducerConfig withFileService(String names) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, timeline, tls, box,
                cache, owner, names);
    }

    public ProducerConfig withBox(TaskBox newBox) {
        return new ProducerConfig(server, name, workers, prefetch, maxCached, claim, jmx, speed, timeline,
                tls, newBox, cache, owner, fsNames);
    }
}
