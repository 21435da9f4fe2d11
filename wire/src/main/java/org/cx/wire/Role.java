package org.cx.wire;

/** What a connecting peer is. */
public enum Role {
    PRODUCER,
    CONSUMER,
    /** Another task server of the production network; {@code Hello.workers} carries its server id. */
    SERVER,
    /** A tool that only asks about the network ({@code cx network status}). */
    OBSERVER
}
