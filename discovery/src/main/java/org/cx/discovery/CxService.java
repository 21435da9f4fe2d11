package org.cx.discovery;

import java.io.Serializable;

/**
 * The service object registered for a CX service: its kind and where to connect. Every CX process has this class,
 * so River never needs to download code (which on modern JDKs it cannot). River treats a second registration of an
 * equal service object as replacing the first, so the kind is part of it: a server and the network it roots share
 * an address.
 */
public final class CxService implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String kind;
    private final String address;

    CxService(String kind, String address) {
        this.kind = kind;
        this.address = address;
    }

    public String kind() {
        return kind;
    }

    public String address() {
        return address;
    }
}
