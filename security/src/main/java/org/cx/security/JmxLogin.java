package org.cx.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateException;
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
    private static final String ALGORITHM = "SHA256withECDSA";

    private JmxLogin() {
    }

    /** The credentials object ({@code JMXConnector.CREDENTIALS}) that logs in as the holder of {@code tls}. */
    public static String[] credentials(Tls tls) {
        Credential c = tls.credential();
        String time = Long.toString(System.currentTimeMillis());
        try {
            Signature s = Signature.getInstance(ALGORITHM);
            s.initSign(c.key());
            s.update(("cx-jmx-login " + time).getBytes(StandardCharsets.US_ASCII));
            Base64.Encoder b64 = Base64.getEncoder();
            return new String[] {b64.encodeToString(c.certificate().getEncoded()), time, b64.encodeToString(s.sign())};
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a JMX login with this credential: " + e.getMessage(), e);
        }
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
            Base64.Decoder b64 = Base64.getDecoder();
            PeerIdentity who = trust.verify(CodeSigning.certificate(b64.decode(parts[0])));
            long time = Long.parseLong(parts[1]);
            if (Math.abs(System.currentTimeMillis() - time) > SKEW.toMillis()) {
                throw new SecurityException("the login's time is more than " + SKEW.toMinutes()
                        + " minutes off this host's clock");
            }
            Signature s = Signature.getInstance(ALGORITHM);
            s.initVerify(CodeSigning.certificate(b64.decode(parts[0])).getPublicKey());
            s.update(("cx-jmx-login " + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!s.verify(b64.decode(parts[2]))) {
                throw new SecurityException("the login's signature does not match its certificate");
            }
            return who;
        } catch (CertificateException e) {
            throw new SecurityException("login refused: " + e.getMessage());
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new SecurityException("login refused: unreadable credentials (" + e.getMessage() + ")");
        }
    }
}
