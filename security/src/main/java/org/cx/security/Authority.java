package org.cx.security;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A network's certificate authority: the one key every member's credential chains to. It issues credentials (an EC
 * P-256 key and a certificate naming role and holder, with an expiry), keeps a list of what it issued, and revokes
 * by writing a signed revocation list that servers check on every new connection.
 *
 * <p>On disk it is a directory: {@value #CERTIFICATE} (public: copy it to every member), {@value #KEY} (the secret
 * that must stay on the machine that issues), {@value #REVOKED} and {@value #ISSUED}.
 */
public final class Authority {
    public static final String CERTIFICATE = "ca.pem";
    public static final String KEY = "ca-key.pem";
    public static final String REVOKED = "revoked.crl";
    public static final String ISSUED = "issued.tsv";
    /** How long an authority's own certificate lasts. */
    static final Duration LIFETIME = Duration.ofDays(3650);
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private final PrivateKey key;
    private final X509Certificate certificate;

    private Authority(Path dir, PrivateKey key, X509Certificate certificate) {
        this.dir = dir;
        this.key = key;
        this.certificate = certificate;
    }

    /** Whether {@code dir} holds an authority. */
    public static boolean exists(Path dir) {
        return Files.exists(dir.resolve(KEY)) && Files.exists(dir.resolve(CERTIFICATE));
    }

    /** Makes a new authority for the network called {@code network} in {@code dir}, which must not hold one. */
    public static Authority create(Path dir, String network) throws IOException {
        if (exists(dir)) {
            throw new IOException(dir + " already holds an authority; remove it first to make a new one");
        }
        KeyPair pair = newKeyPair();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, network + " authority")
                .addRDN(BCStyle.O, "CX").build();
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(LIFETIME)), subject,
                    pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(signer(pair.getPrivate())));
            Authority authority = new Authority(dir, pair.getPrivate(), certificate);
            Pem.write(dir.resolve(KEY), pair.getPrivate(), true);
            Pem.write(dir.resolve(CERTIFICATE), certificate, false);
            authority.writeRevocations(List.of());
            return authority;
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot make an authority: " + e.getMessage(), e);
        }
    }

    /** Opens the authority in {@code dir}. */
    public static Authority open(Path dir) throws IOException {
        if (!exists(dir)) {
            throw new IOException("no authority in " + dir + " (make one with: cx keys init)");
        }
        return new Authority(dir, Pem.readKey(dir.resolve(KEY)), Pem.readCertificate(dir.resolve(CERTIFICATE)));
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public Path dir() {
        return dir;
    }

    /** The signed revocation list that servers read. */
    public Path revocationList() {
        return dir.resolve(REVOKED);
    }

    /**
     * Issues a credential for {@code role} to {@code name}, valid for {@code validity}, and records it in
     * {@value #ISSUED}. Names are shown in logs and accounting; they need not be unique (serials are).
     */
    public synchronized Credential issue(CredentialRole role, String name, Duration validity) throws IOException {
        if (name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("a credential's name must be 1 to 200 characters, got '" + name + "'");
        }
        KeyPair pair = newKeyPair();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name)
                .addRDN(BCStyle.OU, role.label()).addRDN(BCStyle.O, "CX").build();
        X500Name issuer = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        Instant now = Instant.now();
        BigInteger serial = serial();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, serial,
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)), subject,
                    pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            X509Certificate issued = new JcaX509CertificateConverter().getCertificate(builder.build(signer(key)));
            Files.writeString(dir.resolve(ISSUED), serial.toString(16) + "\t" + role.label() + "\t" + name + "\t"
                    + issued.getNotAfter().toInstant() + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            return new Credential(pair.getPrivate(), issued, certificate);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot issue a credential: " + e.getMessage(), e);
        }
    }

    /** One line of what this authority issued. */
    public record Issued(BigInteger serial, CredentialRole role, String name, Instant notAfter, boolean revoked) {
    }

    /** Everything this authority issued, oldest first, with whether it is revoked. */
    public synchronized List<Issued> issued() throws IOException {
        Path file = dir.resolve(ISSUED);
        List<BigInteger> revoked = revoked();
        List<Issued> list = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split("\t");
                if (f.length == 4) {
                    BigInteger serial = new BigInteger(f[0], 16);
                    list.add(new Issued(serial, CredentialRole.parse(f[1]), f[2], Instant.parse(f[3]),
                            revoked.contains(serial)));
                }
            }
        }
        return list;
    }

    /** Revokes the credential with {@code serial}: servers refuse it on its next connection. */
    public synchronized void revoke(BigInteger serial) throws IOException {
        List<BigInteger> revoked = new ArrayList<>(revoked());
        if (!revoked.contains(serial)) {
            revoked.add(serial);
            writeRevocations(revoked);
        }
    }

    private List<BigInteger> revoked() throws IOException {
        return RevocationList.read(revocationList(), certificate).serials();
    }

    private void writeRevocations(List<BigInteger> serials) throws IOException {
        Date now = new Date();
        X509v2CRLBuilder builder = new X509v2CRLBuilder(
                X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()), now);
        builder.setNextUpdate(Date.from(Instant.now().plus(LIFETIME)));
        for (BigInteger serial : serials) {
            builder.addCRLEntry(serial, now, CRLReason.privilegeWithdrawn);
        }
        try {
            X509CRLHolder holder = builder.build(signer(key));
            X509CRL crl = new JcaX509CRLConverter().getCRL(holder);
            Pem.write(revocationList(), crl, false);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot sign the revocation list: " + e.getMessage(), e);
        }
    }

    private static ContentSigner signer(PrivateKey key) throws OperatorCreationException {
        return new JcaContentSignerBuilder(SIGNATURE).build(key);
    }

    private static KeyPair newKeyPair() throws IOException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IOException("this JDK cannot make EC P-256 keys: " + e.getMessage(), e);
        }
    }

    /** A random positive 127-bit serial: unguessable and, in practice, unique. */
    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).setBit(126);
    }
}
