package org.cx.security;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * A task server's word that a producer runs tasks of a user: what lets the producer act for that user in the
 * federated file service, and for no one else. The server signs it with its credential and sends it with the code of
 * the user's computations (signed once a day per user and producer, not per computation); the producer shows it,
 * with its own credential, when it connects for a task of that user.
 *
 * @param owner         the user the producer may act for
 * @param producer      the name on the producer's credential
 * @param issuedSeconds when the server signed it (seconds since the epoch)
 */
public record FileGrant(String owner, String producer, long issuedSeconds) {
    /** How long a grant is taken after it was signed. */
    public static final Duration VALID_FOR = Duration.ofDays(2);
    private static final String HEADER = "cx-file-grant v1";

    /** The text that is signed. */
    public String text() {
        return HEADER + " owner=" + owner + " producer=" + producer + " issued=" + issuedSeconds;
    }

    /** The grant {@code text} states; throws {@link IllegalArgumentException} if it is not one. */
    public static FileGrant parse(String text) {
        if (!text.startsWith(HEADER + " ")) {
            throw new IllegalArgumentException("not a file grant");
        }
        Map<String, String> fields = new HashMap<>();
        for (String field : text.substring(HEADER.length() + 1).split(" ")) {
            int eq = field.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("a file grant's field must be NAME=VALUE, not '" + field + "'");
            }
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        try {
            return new FileGrant(required(fields, "owner"), required(fields, "producer"),
                    Long.parseLong(required(fields, "issued")));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a file grant's time is malformed: " + e.getMessage());
        }
    }

    private static String required(Map<String, String> fields, String name) {
        String v = fields.get(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("a file grant must name its " + name);
        }
        return v;
    }

    /** This grant signed by {@code server} (a task server's credential). */
    public CodeSigning.Signed sign(Tls server) {
        return server.sign(text());
    }

    /**
     * The grant {@code text} if {@code signed} is a signature of it by a server of {@code tls}'s network (not
     * revoked), it names {@code producer} and it was signed within {@link #VALID_FOR} of {@code now}.
     *
     * @throws CodeSigning.RefusedCodeException saying which of these fails
     */
    public static FileGrant check(Tls tls, String text, CodeSigning.Signed signed, String producer, Instant now)
            throws CodeSigning.RefusedCodeException {
        FileGrant grant;
        try {
            grant = parse(text);
        } catch (IllegalArgumentException e) {
            throw new CodeSigning.RefusedCodeException(e.getMessage());
        }
        PeerIdentity signer = tls.signatory(text, signed);
        if (signer.role() != CredentialRole.SERVER) {
            throw new CodeSigning.RefusedCodeException("a file grant must be signed by a task server, not by "
                    + signer.role().label() + " " + signer.name());
        }
        if (!grant.producer().equals(producer)) {
            throw new CodeSigning.RefusedCodeException("the file grant is for producer " + grant.producer() + ", not "
                    + producer);
        }
        long age = now.getEpochSecond() - grant.issuedSeconds();
        if (age > VALID_FOR.toSeconds() || age < -300) {
            throw new CodeSigning.RefusedCodeException("the file grant was signed at " + Instant.ofEpochSecond(
                    grant.issuedSeconds()) + ", outside the " + VALID_FOR.toDays() + " days it is taken for (the "
                    + "producer gets a new one with the next computation it runs for that user)");
        }
        return grant;
    }
}
