package org.cx.security;

import java.math.BigInteger;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * Who is at the other end of a connection, as its credential says: a name, a role and the certificate's serial
 * number (by which it is revoked).
 */
public record PeerIdentity(String name, CredentialRole role, BigInteger serial, Instant notAfter) {

    /** The identity a certificate issued by a CX authority names; throws if it names no role. */
    public static PeerIdentity of(X509Certificate certificate) {
        X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        String name = attribute(subject, BCStyle.CN);
        String role = attribute(subject, BCStyle.OU);
        if (name == null || role == null) {
            throw new IllegalArgumentException("certificate " + certificate.getSubjectX500Principal()
                    + " names no CX role (expected CN=name, OU=role)");
        }
        return new PeerIdentity(name, CredentialRole.parse(role), certificate.getSerialNumber(),
                certificate.getNotAfter().toInstant());
    }

    /**
     * The identity {@code certificate} names, if it was issued by {@code authority}, is valid now and is not revoked.
     *
     * @throws CertificateException saying which of these fails
     */
    public static PeerIdentity verified(X509Certificate certificate, X509Certificate authority,
                                        RevocationList revocations) throws CertificateException {
        try {
            certificate.verify(authority.getPublicKey());
        } catch (java.security.GeneralSecurityException e) {
            throw new CertificateException("the credential (" + certificate.getSubjectX500Principal()
                    + ") was not issued by this network's authority");
        }
        certificate.checkValidity();
        PeerIdentity identity;
        try {
            identity = of(certificate);
        } catch (IllegalArgumentException e) {
            throw new CertificateException(e.getMessage());
        }
        if (revocations.revoked(identity.serial())) {
            throw new CertificateException("the credential of " + identity + " (serial "
                    + identity.serial().toString(16) + ") is revoked");
        }
        return identity;
    }

    private static String attribute(X500Name subject, ASN1ObjectIdentifier type) {
        RDN[] rdns = subject.getRDNs(type);
        return rdns.length == 0 ? null : IETFUtils.valueToString(rdns[0].getFirst().getValue());
    }

    @Override
    public String toString() {
        return role.label() + " " + name;
    }
}
