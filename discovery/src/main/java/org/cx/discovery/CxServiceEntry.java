package org.cx.discovery;

import net.jini.entry.AbstractEntry;

/** The attributes of a CX service in the River lookup service (public fields, as River entries must have). */
public final class CxServiceEntry extends AbstractEntry {
    private static final long serialVersionUID = 1L;

    public String kind;
    public String name;
    public String address;
    public Integer position;
    public Integer tasks;
    public Integer producers;
    /** The registering server's certificate and its signature of {@link ServiceRecord#signedText()}, base64. */
    public String signer;
    public String signature;

    /** For River (templates and deserialisation). */
    public CxServiceEntry() {
    }

    CxServiceEntry(ServiceRecord r) {
        kind = r.kind();
        name = r.name();
        address = r.address();
        position = r.position();
        tasks = r.tasks();
        producers = r.producers();
        signer = r.signer();
        signature = r.signature();
    }

    ServiceRecord toRecord() {
        return new ServiceRecord(kind, name, address, orUnknown(position), orUnknown(tasks), orUnknown(producers),
                signer == null ? "" : signer, signature == null ? "" : signature);
    }

    private static int orUnknown(Integer v) {
        return v == null ? -1 : v;
    }
}
