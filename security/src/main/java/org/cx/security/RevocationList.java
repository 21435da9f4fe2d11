package org.cx.security;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serials an authority revoked, read from its signed list ({@value Authority#REVOKED}). A {@link #watching}
 * list rereads the file when it changes, so a revocation takes effect on the next connection without a restart.
 */
public final class RevocationList {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationList.class);

    private final Path file;
    private final X509Certificate authority;
    private volatile Set<BigInteger> serials;
    private volatile FileTime readAt;

    private RevocationList(Path file, X509Certificate authority, Set<BigInteger> serials, FileTime readAt) {
        this.file = file;
        this.authority = authority;
        this.serials = serials;
        this.readAt = readAt;
    }

    /** Revokes nothing. */
    public static RevocationList none() {
        return new RevocationList(null, null, Set.of(), null);
    }

    /** The list in {@code file} as it is now (empty if there is no file); its signature must be the authority's. */
    public static RevocationList read(Path file, X509Certificate authority) throws IOException {
        if (!Files.exists(file)) {
            return new RevocationList(null, authority, Set.of(), null);
        }
        return new RevocationList(null, authority, parse(file, authority), Files.getLastModifiedTime(file));
    }

    /** The list in {@code file}, reread whenever the file changes. */
    public static RevocationList watching(Path file, X509Certificate authority) throws IOException {
        RevocationList now = read(file, authority);
        return new RevocationList(file, authority, now.serials, now.readAt);
    }

    public boolean revoked(BigInteger serial) {
        refresh();
        return serials.contains(serial);
    }

    public List<BigInteger> serials() {
        refresh();
        return new ArrayList<>(serials);
    }

    private void refresh() {
        if (file == null) {
            return;
        }
        try {
            FileTime modified = Files.exists(file) ? Files.getLastModifiedTime(file) : null;
            if (modified != null && !modified.equals(readAt)) {
                serials = parse(file, authority);
                readAt = modified;
                LOG.info("revocation list {} reread: {} revoked", file, serials.size());
            }
        } catch (IOException e) {
            // Keeps the last good list: a half-written or forged file must not un-revoke anyone.
            LOG.warn("cannot reread the revocation list {} ({}); keeping the last one read", file, e.getMessage());
        }
    }

    private static Set<BigInteger> parse(Path file, X509Certificate authority) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            X509CRL crl = (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in);
            crl.verify(authority.getPublicKey());
            Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
            return entries == null ? Set.of()
                    : Set.copyOf(entries.stream().map(X509CRLEntry::getSerialNumber).toList());
        } catch (GeneralSecurityException e) {
            throw new IOException(file + " is not a revocation list signed by this network's authority: "
                    + e.getMessage(), e);
        }
    }
}
