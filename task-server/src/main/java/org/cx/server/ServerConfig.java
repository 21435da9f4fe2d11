package org.cx.server;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Task server settings, checked once at start-up.
 *
 * @param host             address to bind (loopback by default: exposing a server is a deliberate choice)
 * @param port             TCP port; 0 picks a free one
 * @param name             shown in logs and status
 * @param resultRetention  how long a finished computation's result waits to be collected
 * @param maxFrameBytes    hard limit on one frame, both directions
 * @param auditEffects     count applied effects per task id (tests; costs memory per task)
 * @param seed             seeds computation ids
 * @param network          how it joins or founds a production network
 * @param commitLog        if not null, a file to which the id of every task whose completion is committed (applied
 *                         here and on every mirror) is appended with the time: an audit trail that survives kill -9;
 *                         beside it, {@link #trail()} says how each task came to be stored here or left
 * @param jmx              the JMX service URL of this server's process, told to the network for {@code cx status};
 *                         empty if none
 * @param timeline         record the scheduler's decisions (tasks stored, assigned, revoked) with their times, for a
 *                         run's timeline ({@link TaskServerNode#timeline()}); off by default
 */
public record ServerConfig(String host, int port, String name, Duration resultRetention, int maxFrameBytes,
                           boolean auditEffects, long seed, NetworkConfig network, Path commitLog, String jmx,
                           boolean timeline) {

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 0..65535, got " + port);
        }
        if (resultRetention.isNegative() || resultRetention.isZero()) {
            throw new IllegalArgumentException("result retention must be positive, got " + resultRetention);
        }
        if (maxFrameBytes < 1024) {
            throw new IllegalArgumentException("max frame must be at least 1024 bytes, got " + maxFrameBytes);
        }
    }

    /** Loopback, a free port, results kept for an hour. */
    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", 0, "server", Duration.ofHours(1),
                org.cx.wire.WireConfig.maxFrameBytes(), false, System.nanoTime(), NetworkConfig.defaults(), null, "",
                false);
    }

    public ServerConfig withPort(int newPort) {
        return new ServerConfig(host, newPort, name, resultRetention, maxFrameBytes, auditEffects, seed, network,
                commitLog, jmx, timeline);
    }

    public ServerConfig withHost(String newHost) {
        return new ServerConfig(newHost, port, name, resultRetention, maxFrameBytes, auditEffects, seed, network,
                commitLog, jmx, timeline);
    }

    public ServerConfig withName(String newName) {
        return new ServerConfig(host, port, newName, resultRetention, maxFrameBytes, auditEffects, seed, network,
                commitLog, jmx, timeline);
    }

    public ServerConfig withResultRetention(Duration retention) {
        return new ServerConfig(host, port, name, retention, maxFrameBytes, auditEffects, seed, network, commitLog, jmx,
                timeline);
    }

    public ServerConfig withMaxFrameBytes(int bytes) {
        return new ServerConfig(host, port, name, resultRetention, bytes, auditEffects, seed, network, commitLog, jmx,
                timeline);
    }

    public ServerConfig withAuditEffects(boolean audit) {
        return new ServerConfig(host, port, name, resultRetention, maxFrameBytes, audit, seed, network, commitLog, jmx,
                timeline);
    }

    public ServerConfig withNetwork(NetworkConfig newNetwork) {
        return new ServerConfig(host, port, name, resultRetention, maxFrameBytes, auditEffects, seed, newNetwork,
                commitLog, jmx, timeline);
    }

    /**
     * The commit log's companion: one line per task stored, sent or received in a transfer ({@code taskId event
     * nanoTime}); null without a commit log.
     */
    public Path trail() {
        return commitLog == null ? null : trailBeside(commitLog);
    }

    /** Where a server whose commit log is {@code commitLog} writes its {@link #trail()}. */
    public static Path trailBeside(Path commitLog) {
        return commitLog.resolveSibling(commitLog.getFileName() + ".trail");
    }

    public ServerConfig withCommitLog(Path file) {
        return new ServerConfig(host, port, name, resultRetention, maxFrameBytes, auditEffects, seed, network, file,
                jmx, timeline);
    }

    public ServerConfig withJmx(String url) {
        return new ServerConfig(host, port, name, resultRetention, maxFrameBytes, auditEffects, seed, network, commitLog,
                url, timeline);
    }

    public ServerConfig withTimeline(boolean on) {
        return new ServerConfig(host, port, name, resultRetention, maxFrameBytes, auditEffects, seed, network, commitLog,
                jmx, on);
    }
}
