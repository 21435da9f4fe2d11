package org.cx.wire;

import org.cx.security.CodeSigning;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * A computation's code: the bytes of an ordinary jar, named by their SHA-256 hash. Servers pass bundles on as
 * bytes; producers, consumers and servers running {@code executeOnServer} tasks load classes from them through a
 * {@link BundleClassLoader}.
 */
public final class CodeBundle {
    /** The "hash" of no bundle: the computation runs from the process's own class path. */
    public static final String CLASS_PATH = "";
    /** Bytes per {@link Message.BundleChunk}, well under the frame limit. */
    public static final int CHUNK_BYTES = 1 << 20;

    private final String hash;
    private final byte[] bytes;
    /** The signature of the user who submitted it, or none (on a network of plain connections). */
    private final CodeSigning.Signed signed;
    /** The jar's entries, read when a class is first loaded from it: servers only pass bundles on. */
    private volatile Map<String, byte[]> entries;

    private CodeBundle(String hash, byte[] bytes, Map<String, byte[]> entries, CodeSigning.Signed signed) {
        this.hash = hash;
        this.bytes = bytes;
        this.entries = entries;
        this.signed = signed;
    }

    /** Reads a jar's bytes (unsigned). @throws InvalidBundleException if they are not a readable jar */
    public static CodeBundle of(byte[] jar) {
        return new CodeBundle(hashOf(jar), jar, unzip(jar), CodeSigning.Signed.NONE);
    }

    /** This bundle signed as the user of {@code tls}; itself, unsigned, for null (plain connections). */
    public CodeBundle signedAs(Tls tls) {
        return tls == null ? this : new CodeBundle(hash, bytes, entries, tls.sign(hash));
    }

    public CodeSigning.Signed signed() {
        return signed;
    }

    /**
     * Who signed this bundle, checked against {@code trust}'s authority and revocations; null with a null
     * {@code trust} (plain connections: code is not signed).
     *
     * @throws InvalidBundleException saying why the code must not run
     */
    public PeerIdentity signer(Tls trust) {
        if (trust == null) {
            return null;
        }
        try {
            return trust.signerOf(hash, signed);
        } catch (CodeSigning.RefusedCodeException e) {
            throw new InvalidBundleException("code bundle " + shortHash(hash) + " is refused: " + e.getMessage());
        }
    }

    /**
     * Bytes that arrived from the wire claiming to be bundle {@code expectedHash}. Checks the hash and that they
     * start like a jar; the entries are read when first needed.
     *
     * @throws InvalidBundleException if their hash differs or they are not a jar
     */
    public static CodeBundle verified(String expectedHash, byte[] jar, CodeSigning.Signed signed) {
        String actual = hashOf(jar);
        if (!actual.equals(expectedHash)) {
            throw new InvalidBundleException("code bundle " + shortHash(expectedHash) + " arrived with hash "
                    + shortHash(actual) + ": the bytes were corrupted or the sender named the wrong bundle");
        }
        if (jar.length < 4 || jar[0] != 'P' || jar[1] != 'K' || jar[2] != 3 || jar[3] != 4) {
            throw new InvalidBundleException("code bundle " + shortHash(expectedHash) + " is not a jar");
        }
        return new CodeBundle(actual, jar, null, signed);
    }

    private Map<String, byte[]> entries() {
        Map<String, byte[]> e = entries;
        if (e == null) {
            synchronized (this) {
                e = entries;
                if (e == null) {
                    e = unzip(bytes);
                    entries = e;
                }
            }
        }
        return e;
    }

    public static String hashOf(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The first 12 hex digits, enough to tell bundles apart in messages. */
    public static String shortHash(String hash) {
        return hash.length() > 12 ? hash.substring(0, 12) : hash;
    }

    private static Map<String, byte[]> unzip(byte[] jar) {
        Map<String, byte[]> entries = new HashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                if (!e.isDirectory()) {
                    entries.put(e.getName(), in.readAllBytes());
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidBundleException("the code bundle is not a readable jar: " + e.getMessage());
        }
        if (entries.isEmpty()) {
            throw new InvalidBundleException("the code bundle is not a jar, or an empty one");
        }
        return entries;
    }

    public String hash() {
        return hash;
    }

    public byte[] bytes() {
        return bytes;
    }

    public int size() {
        return bytes.length;
    }

    /**
     * An entry's bytes ({@code org/example/App.class}), or null.
     *
     * @throws InvalidBundleException if the bundle turns out not to be a readable jar
     */
    public byte[] entry(String name) {
        return entries().get(name);
    }

    /** The names of its entries, sorted. */
    public java.util.SortedSet<String> entryNames() {
        return new java.util.TreeSet<>(entries().keySet());
    }

    /**
     * A bundle of {@code entries} (name → bytes), stored uncompressed, with fixed times and in name order, so that
     * the same entries always make the same bytes and hash: how shared data travels and is kept.
     */
    public static CodeBundle ofEntries(java.util.SortedMap<String, byte[]> entries) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.ZipOutputStream zip = new java.util.zip.ZipOutputStream(out)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                ZipEntry entry = new ZipEntry(e.getKey());
                entry.setMethod(ZipEntry.STORED);
                entry.setSize(e.getValue().length);
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                crc.update(e.getValue());
                entry.setCrc(crc.getValue());
                entry.setTime(0);
                zip.putNextEntry(entry);
                zip.write(e.getValue());
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return of(out.toByteArray());
    }

    /** The jar manifest's main attributes of interest, or null when absent. */
    public String manifestAttribute(String name) {
        byte[] manifest = entries().get("META-INF/MANIFEST.MF");
        if (manifest == null) {
            return null;
        }
        try {
            return new java.util.jar.Manifest(new ByteArrayInputStream(manifest)).getMainAttributes().getValue(name);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "bundle " + shortHash(hash) + " (" + bytes.length + " bytes)";
    }

    /** Bytes that cannot serve as a computation's code. */
    public static final class InvalidBundleException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public InvalidBundleException(String message) {
            super(message);
        }
    }
}
