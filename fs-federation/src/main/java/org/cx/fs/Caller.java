package org.cx.fs;

/**
 * Who asks: the name on the caller's credential (its role {@code admin} may do anything), or with plain connections
 * the user it declares.
 */
public record Caller(String name, boolean admin) {
    /** The file service's own processes (replay of the journal, file servers). */
    static final Caller SERVICE = new Caller("cx-fs", true);
}
