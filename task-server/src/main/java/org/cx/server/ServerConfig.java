package org.cx.server;

import java.nio.file.Path;
import java.time.Duration;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;

/**
 * Task server settings, checked once at start-up.
 *
 * @param host             address to bind (loopback by default: exposing a server is a deliberate choice)
 * @param advertise        the host other servers, clients and the lookup service are told to reach it at; null: the
 *                         bound {@code host}, or a routable address of this machine when bound to every interface
 * @param port             TCP port; 0 picks a free one
 * @param name             shown in logs and status
 * @param resultRetention  how long a finished computation's result waits to be collected
 * @param maxFrameBytes    hard limit on one frame, both directions
 * @param auditEffects     count applied effects per task id (tests; costs memory per task)
 * @param tls              this server's credential and the network's authority: every connection, accepted or
 *                         opened, is mutually authenticated TLS and peers' roles come from their credentials; null
 *                         for plain connections whose roles come from the peers' word (only with {@code --insecure})
 * @param network          how it joins or founds a production network
 * @param commitLog        if not null, a file to which the id of every task whose completion is committed (applied
 *                         here and on every mirror) is appended with the time: an audit trail that survives kill -9;
 *                         beside it, {@link #trail()} says how each task came to be stored here or left
 * @param jmx              the JMX service URL of this server's process, told to the network for {@code cx status};
 *                         empty if none
 * @param guards           caps on connections and timeouts for what a connection half-does
 * @param quotas           what one user may hold on this server
 * @param serverTasks      run {@code executeOnServer} tasks here (off by default: a server then runs no
 *                         application code, and such a task fails its computation with the reason)
 * @param timeline         record the scheduler's decisions (tasks stored, assigned, revoked) with their times, for a
 *                         run's timeline ({@link TaskServerNode#timeline()}); off by default
 */
public record ServerConfig(String host, String advertise, int port, String name, Duration resultRetention,
                           int maxFrameBytes, boolean auditEffects, Tls tls, NetworkConfig network, Path commitLog,
                           String jmx, boolean timeline, ConnectionGuards guards, UserQuotas quotas,
                           boolean serverTasks) {

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

    /**
     * Loopback, a free port, results kept for an hour, and TLS with this user's local server credential
     * ({@link CxHome#local}: the local authority is made on first use).
     */
    public static ServerConfig defaults() {
        return defaults(CxHome.localOrFail(CredentialRole.SERVER, true));
    }

    /** As {@link #defaults()}, with {@code tls} (null: plain connections). */
    public static ServerConfig defaults(Tls tls) {
        return new ServerConfig("127.0.0.1", null, 0, "server", Duration.ofHours(1),
                org.cx.wire.WireConfig.maxFrameBytes(), false, tls, NetworkConfig.defaults(), null, "", false,
                ConnectionGuards.defaults(), UserQuotas.defaults(), false);
    }

    public ServerConfig withPort(int newPort) {
        return new ServerConfig(host, advertise, newPort, name, resultRetention, maxFrameBytes, auditEffects, tls,
                network, commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withHost(String newHost) {
        return new ServerConfig(newHost, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls,
                network, commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withAdvertise(String newAdvertise) {
        return new ServerConfig(host, newAdvertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls,
                network, commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withName(String newName) {
        return new ServerConfig(host, advertise, port, newName, resultRetention, maxFrameBytes, auditEffects, tls,
                network, commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withResultRetention(Duration retention) {
        return new ServerConfig(host, advertise, port, name, retention, maxFrameBytes, auditEffects, tls, network,
                commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withMaxFrameBytes(int bytes) {
        return new ServerConfig(host, advertise, port, name, resultRetention, bytes, auditEffects, tls, network,
                commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withAuditEffects(boolean audit) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, audit, tls, network,
                commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withNetwork(NetworkConfig newNetwork) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls,
                newNetwork, commitLog, jmx, timeline, guards, quotas, serverTasks);
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

    /** With TLS and roles from credentials ({@code tls}), or plain connections (null). */
    public ServerConfig withTls(Tls newTls) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, newTls,
                network, commitLog, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withGuards(ConnectionGuards newGuards) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                commitLog, jmx, timeline, newGuards, quotas, serverTasks);
    }

    public ServerConfig withQuotas(UserQuotas newQuotas) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                commitLog, jmx, timeline, guards, newQuotas, serverTasks);
    }

    public ServerConfig withServerTasks(boolean allowed) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                commitLog, jmx, timeline, guards, quotas, allowed);
    }

    /** Whether connections are plain and roles come from the peers' word. */
    public boolean insecure() {
        return tls == null;
    }

    public ServerConfig withCommitLog(Path file) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                file, jmx, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withJmx(String url) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                commitLog, url, timeline, guards, quotas, serverTasks);
    }

    public ServerConfig withTimeline(boolean on) {
        return new ServerConfig(host, advertise, port, name, resultRetention, maxFrameBytes, auditEffects, tls, network,
                commitLog, jmx, on, guards, quotas, serverTasks);
    }
}
