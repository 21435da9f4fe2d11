package org.cx.security;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/** Reads and writes keys and certificates as PEM files (the format openssl and Netty read). */
final class Pem {

    private Pem() {
    }

    static X509Certificate readCertificate(Path file) throws IOException {
        Object read = readObject(file);
        if (!(read instanceof X509CertificateHolder holder)) {
            throw new IOException(file + " holds no certificate");
        }
        try {
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (CertificateException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    static PrivateKey readKey(Path file) throws IOException {
        Object read = readObject(file);
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        if (read instanceof PrivateKeyInfo info) {
            return converter.getPrivateKey(info);
        }
        if (read instanceof PEMKeyPair pair) {
            return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        throw new IOException(file + " holds no unencrypted private key");
    }

    private static Object readObject(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            throw new IOException("cannot read " + file + (Files.exists(file) ? " (permissions)" : " (no such file)"));
        }
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
             PEMParser parser = new PEMParser(reader)) {
            return parser.readObject();
        }
    }

    /** Writes {@code object} (a certificate, key or CRL) as PEM, atomically; {@code secret}: readable by its owner only. */
    static void write(Path file, Object object, boolean secret) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object instanceof PrivateKey key
                    ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null) : object);
        }
        writeAtomically(file, text.toString(), secret);
    }

    static void writeAtomically(Path file, String text, boolean secret) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), "." + file.getFileName(), ".tmp");
        try {
            if (temp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--"));
            }
            Files.writeString(temp, text, StandardCharsets.US_ASCII);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
