package org.cx.discovery;

/**
 * A registered service as clients see it: its kind ({@link Discovery#TASK_SERVER}, {@link Discovery#NETWORK}), name,
 * {@code host:port}, and for task servers the tree position, tasks held and producers attached (-1 unknown). A
 * server signs {@link #signedText()} with its credential ({@code signer}: its certificate, base64 DER; both empty
 * on a network of plain connections), so that clients can skip registrations nobody of the network made.
 */
public record ServiceRecord(String kind, String name, String address, int position, int tasks, int producers,
                            String signer, String signature) {

    /** Unsigned. */
    public ServiceRecord(String kind, String name, String address, int position, int tasks, int producers) {
        this(kind, name, address, position, tasks, producers, "", "");
    }

    public static ServiceRecord of(String kind, String name, String address) {
        return new ServiceRecord(kind, name, address, -1, -1, -1);
    }

    /** What the signature covers: the kind, the name and the address, which do not change while registered. */
    public String signedText() {
        return "cx-registration\n" + kind + "\n" + name + "\n" + address;
    }

    /** This record signed with {@code signer}'s certificate and {@code signature}, both base64. */
    public ServiceRecord signed(String signerBase64, String signatureBase64) {
        return new ServiceRecord(kind, name, address, position, tasks, producers, signerBase64, signatureBase64);
    }
}
