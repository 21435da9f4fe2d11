package org.cx.wire;

/** What a connecting peer is. */
public enum Role {
    PRODUCER,
    CONSUMER
}
