package org.cx.security;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * One holder's credential: its private key, its certificate (naming its role and name) and the certificate of the
 * network's authority that issued it. On disk it is a directory of three PEM files: {@value #CERTIFICATE},
 * {@value #KEY} (readable by its owner only) and {@value #AUTHORITY}.
 */
public record Credential(PrivateKey key, X509Certificate certificate, X509Certificate authority) {
    public static final String CERTIFICATE = "cert.pem";
    public static final String KEY = "key.pem";
    public static final String AUTHORITY = "ca.pem";

    public PeerIdentity identity() {
        return PeerIdentity.of(certificate);
    }

    /** Reads the credential in {@code dir}; the message says which file is missing or wrong. */
    public static Credential read(Path dir) throws IOException {
        Credential credential = new Credential(Pem.readKey(dir.resolve(KEY)), Pem.readCertificate(dir.resolve(CERTIFICATE)),
                Pem.readCertificate(dir.resolve(AUTHORITY)));
        try {
            credential.certificate.verify(credential.authority.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new IOException("the certificate in " + dir + " was not issued by the authority beside it ("
                    + e.getMessage() + ")", e);
        }
        credential.identity();
        return credential;
    }

    /** Writes the three files into {@code dir}, creating it. */
    public void write(Path dir) throws IOException {
        Pem.write(dir.resolve(AUTHORITY), authority, false);
        Pem.write(dir.resolve(CERTIFICATE), certificate, false);
        Pem.write(dir.resolve(KEY), key, true);
    }

    /** Whether the certificate is still valid for at least a tenth of its lifetime. */
    public boolean fresh() {
        long now = System.currentTimeMillis();
        long start = certificate.getNotBefore().getTime();
        long end = certificate.getNotAfter().getTime();
        return now < end - (end - start) / 10;
    }
}
