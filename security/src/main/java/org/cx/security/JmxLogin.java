package org.cx.security;

import java.time.Duration;
import java.util.Base64;

/**
 * Logging in to a CX process's JMX connector with a CX credential: the client presents its certificate, the time,
 * and its signature of the time; the process accepts a credential of its network's authority, valid, not revoked,
 * with a time within {@link #SKEW} of its own. Anyone who logs in may read; only an admin credential may change
 * anything or invoke operations (a heap dump, for one).
 */
public final class JmxLogin {
    /** How far the client's clock and the server's may differ; a captured login is good for no longer. */
    public static final Duration SKEW = Duration.ofMinutes(2);

    private JmxLogin() {
    }

    /** The credentials object ({@code JMXConnector.CREDENTIALS}) that logs in as the holder of {@code tls}. */
    public static String[] credentials(Tls tls) {
        String time = Long.toString(System.currentTimeMillis());
        CodeSigning.Signed signed = tls.sign(signedText(time));
        Base64.Encoder b64 = Base64.getEncoder();
        return new String[] {b64.encodeToString(signed.signer()), time, b64.encodeToString(signed.signature())};
    }

    /**
     * Who logs in with {@code credentials}.
     *
     * @throws SecurityException saying why the login is refused
     */
    public static PeerIdentity verify(Object credentials, Tls trust) {
        if (!(credentials instanceof String[] parts) || parts.length != 3) {
            throw new SecurityException("log in with a CX credential (cx status does; see docs/security.md)");
        }
        try {
            long time = Long.parseLong(parts[1]);
            if (Math.abs(System.currentTimeMillis() - time) > SKEW.toMillis()) {
                throw new SecurityException("the login's time is more than " + SKEW.toMinutes()
                        + " minutes off this host's clock");
            }
            Base64.Decoder b64 = Base64.getDecoder();
            return trust.signatory(signedText(parts[1]), new CodeSigning.Signed(b64.decode(parts[0]),
                    b64.decode(parts[2])));
        } catch (CodeSigning.RefusedCodeException e) {
            throw new SecurityException("login refused: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new SecurityException("login refused: unreadable credentials (" + e.getMessage() + ")");
        }
    }

    private static String signedText(String time) {
        return "cx-jmx-login " + time;
    }
}
