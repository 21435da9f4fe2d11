package org.cx.security;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * Code bundles signed by the users who submit them. A bundle is named by the SHA-256 hash of its bytes; its
 * signature is the user's ECDSA signature of that hash, carried with the user's certificate, so that every server
 * and producer that receives the bundle checks, with nothing but the network's authority, that a user of this
 * network vouched for exactly these bytes. A server relays signed code; it cannot make any.
 */
public final class CodeSigning {
    private static final String ALGORITHM = "SHA256withECDSA";

    private CodeSigning() {
    }

    /** A signature of a bundle: the signer's certificate (DER) and its signature of the bundle's hash. */
    public record Signed(byte[] signer, byte[] signature) {
        /** No signature: a bundle from a process with plain connections. */
        public static final Signed NONE = new Signed(new byte[0], new byte[0]);

        public boolean isNone() {
            return signer.length == 0;
        }
    }

    /** Refused code: the reason says what is wrong with the signature. */
    public static final class RefusedCodeException extends Exception {
        private static final long serialVersionUID = 1L;

        public RefusedCodeException(String reason) {
            super(reason);
        }
    }

    /** Reads a DER certificate. */
    static X509Certificate certificate(byte[] der) throws CertificateException {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
        } catch (RuntimeException e) {
            throw new CertificateException("not a certificate: " + e.getMessage());
        }
    }

    /** Signs bundle {@code hash} as the holder of {@code credential}. */
    public static Signed sign(Credential credential, String hash) {
        try {
            Signature s = Signature.getInstance(ALGORITHM);
            s.initSign(credential.key());
            s.update(hash.getBytes(StandardCharsets.US_ASCII));
            return new Signed(credential.certificate().getEncoded(), s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with this credential: " + e.getMessage(), e);
        }
    }

    /**
     * Who signed bundle {@code hash}: the signer's certificate must be issued by {@code authority}, valid now, not
     * revoked, and a user's (or an admin's); the signature must be its key's over exactly that hash.
     *
     * @throws RefusedCodeException saying which of these fails
     */
    public static PeerIdentity verify(String hash, Signed signed, X509Certificate authority,
                                      RevocationList revocations) throws RefusedCodeException {
        if (signed.isNone()) {
            throw new RefusedCodeException("it is not signed (code runs only when a user of this network signed it)");
        }
        PeerIdentity identity = signatory(hash, signed, authority, revocations);
        if (!identity.role().consumes()) {
            throw new RefusedCodeException("it is signed by " + identity + ", and only users run code");
        }
        return identity;
    }

    /**
     * Who signed {@code text} (a bundle's hash, a registration): the signer's certificate must be the authority's,
     * valid and not revoked, and the signature its key's over exactly that text. Any role.
     *
     * @throws RefusedCodeException saying which of these fails
     */
    public static PeerIdentity signatory(String text, Signed signed, X509Certificate authority,
                                         RevocationList revocations) throws RefusedCodeException {
        if (signed.isNone()) {
            throw new RefusedCodeException("it is not signed");
        }
        X509Certificate signer;
        PeerIdentity identity;
        try {
            signer = certificate(signed.signer());
            identity = PeerIdentity.verified(signer, authority, revocations);
        } catch (CertificateException e) {
            throw new RefusedCodeException("its signer's certificate is refused: " + e.getMessage());
        }
        try {
            Signature s = Signature.getInstance(ALGORITHM);
            s.initVerify(signer.getPublicKey());
            s.update(text.getBytes(StandardCharsets.US_ASCII));
            if (!s.verify(signed.signature())) {
                throw new RefusedCodeException("its signature by " + identity + " does not match its bytes");
            }
        } catch (GeneralSecurityException e) {
            throw new RefusedCodeException("its signature by " + identity + " cannot be read: " + e.getMessage());
        }
        return identity;
    }
}
