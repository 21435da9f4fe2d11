package org.cx.server;

import java.time.Duration;

/**
 * What one server allows a connection before it knows whom it serves, so that no peer exhausts it by opening
 * connections or sending half of things.
 *
 * @param maxConnections           connections held at once; more are refused with the reason
 * @param maxConnectionsPerAddress connections from one address at once
 * @param helloTimeout             how long a connection may stay open without its first message (after TLS)
 * @param frameStall               how long part of a frame may wait for the rest without a byte arriving
 */
public record ConnectionGuards(int maxConnections, int maxConnectionsPerAddress, Duration helloTimeout,
                               Duration frameStall) {

    public ConnectionGuards {
        if (maxConnections < 1 || maxConnectionsPerAddress < 1) {
            throw new IllegalArgumentException("connection limits must be at least 1, got " + maxConnections
                    + " and " + maxConnectionsPerAddress);
        }
        if (!helloTimeout.isPositive() || !frameStall.isPositive()) {
            throw new IllegalArgumentException("the Hello timeout and the frame stall must be positive");
        }
    }

    /** 10,000 connections, 2,000 from one address, 10 s to say Hello, 30 s of stall inside a frame. */
    public static ConnectionGuards defaults() {
        return new ConnectionGuards(10_000, 2_000, Duration.ofSeconds(10), Duration.ofSeconds(30));
    }

    public ConnectionGuards withMaxConnections(int total, int perAddress) {
        return new ConnectionGuards(total, perAddress, helloTimeout, frameStall);
    }
}
