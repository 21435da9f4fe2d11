package org.cx.security;

import java.util.Locale;

/**
 * What a credential lets its holder be in a CX network. The role is written in the certificate by the network's
 * authority (as the subject's organizational unit), so a peer's role comes from its credential, never from its word.
 */
public enum CredentialRole {
    /** A task server: may join the network, send server messages and hold task state. */
    SERVER,
    /** A producer: may receive tasks and send their completions. */
    PRODUCER,
    /** A consumer's user: may submit computations and see, collect and cancel its own. */
    USER,
    /** A user who may also run administrative operations. */
    ADMIN;

    /** The name used on the command line and in certificates: {@code server}, {@code producer}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** May submit computations. */
    public boolean consumes() {
        return this == USER || this == ADMIN;
    }

    /** Parses a {@link #label()}; throws with the choices when {@code text} is none of them. */
    public static CredentialRole parse(String text) {
        for (CredentialRole role : values()) {
            if (role.label().equals(text.toLowerCase(Locale.ROOT))) {
                return role;
            }
        }
        throw new IllegalArgumentException("unknown credential role '" + text
                + "': expected server, producer, user or admin");
    }
}
