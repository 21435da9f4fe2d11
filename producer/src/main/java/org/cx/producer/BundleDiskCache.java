package org.cx.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.cx.security.CodeSigning;
import org.cx.wire.CodeBundle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Code and shared data bundles kept on the producer's disk, so that neither a later computation nor a restarted
 * producer fetches them again: one file per bundle named by its hash, with its signature beside it, least recently
 * used first out beyond a size bound. Several producers of one host may share a directory: files are written under
 * a temporary name and moved into place, and every bundle read back is checked against its hash and its signature
 * like one from the network. Blocking I/O: call it off the event loop.
 */
public final class BundleDiskCache {
    private static final Logger LOG = LoggerFactory.getLogger(BundleDiskCache.class);

    /**
     * Where to keep bundles and how many bytes of them at most.
     *
     * @param dir      the directory (created when needed); null: no disk cache
     * @param maxBytes the bound on the bundles' bytes
     */
    public record Settings(Path dir, long maxBytes) {
        /** No disk cache: bundles are kept in memory only. */
        public static final Settings NONE = new Settings(null, 0);

        public Settings {
            if (dir != null && maxBytes < 1) {
                throw new IllegalArgumentException("a bundle cache needs a positive size, got " + maxBytes);
            }
        }
    }

    private final Path dir;
    private final long maxBytes;

    BundleDiskCache(Settings settings) {
        this.dir = settings.dir();
        this.maxBytes = settings.maxBytes();
    }

    boolean enabled() {
        return dir != null;
    }

    /** Whether bundle {@code hash} is on disk (cheap: one file lookup). */
    boolean has(String hash) {
        return dir != null && Files.isRegularFile(file(hash));
    }

    /**
     * Bundle {@code hash} from disk, checked against its hash (its signature is the caller's to check); null if it
     * is not there or is damaged (then it is removed).
     */
    CodeBundle load(String hash) {
        if (!has(hash)) {
            return null;
        }
        try {
            byte[] bytes = Files.readAllBytes(file(hash));
            CodeSigning.Signed signed = readSignature(hash);
            CodeBundle bundle = CodeBundle.verified(hash, bytes, signed);
            Files.setLastModifiedTime(file(hash), FileTime.fromMillis(System.currentTimeMillis()));
            return bundle;
        } catch (IOException | CodeBundle.InvalidBundleException e) {
            LOG.warn("bundle {} on disk in {} is unreadable or damaged ({}); fetching it again",
                    CodeBundle.shortHash(hash), dir, e.getMessage());
            remove(hash);
            return null;
        }
    }

    /** Keeps {@code bundle} (verified) on disk, then removes the least recently used beyond the bound. */
    void store(CodeBundle bundle) {
        if (dir == null || has(bundle.hash()) || bundle.size() > maxBytes) {
            return;
        }
        try {
            Files.createDirectories(dir);
            writeAtomically(signatureFile(bundle.hash()), signatureBytes(bundle.signed()));
            writeAtomically(file(bundle.hash()), bundle.bytes());
            trim();
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot keep bundle {} in {}: {}", CodeBundle.shortHash(bundle.hash()), dir, e.getMessage());
        }
    }

    private void writeAtomically(Path target, byte[] bytes) throws IOException {
        Path temporary = Files.createTempFile(dir, ".incoming-", ".tmp");
        try {
            Files.write(temporary, bytes);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** Removes the least recently used bundles until the rest fit the bound. */
    private void trim() throws IOException {
        List<Path> bundles = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(f -> f.getFileName().toString().endsWith(".jar")).forEach(bundles::add);
        }
        long total = 0;
        for (Path f : bundles) {
            total += Files.size(f);
        }
        bundles.sort(Comparator.comparing(BundleDiskCache::lastModified));
        for (int i = 0; total > maxBytes && i < bundles.size(); i++) {
            Path oldest = bundles.get(i);
            total -= Files.size(oldest);
            remove(oldest.getFileName().toString().replace(".jar", ""));
        }
    }

    private static FileTime lastModified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    private void remove(String hash) {
        try {
            Files.deleteIfExists(file(hash));
            Files.deleteIfExists(signatureFile(hash));
        } catch (IOException e) {
            LOG.debug("cannot remove bundle {}: {}", hash, e.getMessage());
        }
    }

    private Path file(String hash) {
        return dir.resolve(hash + ".jar");
    }

    private Path signatureFile(String hash) {
        return dir.resolve(hash + ".sig");
    }

    /** The signer's certificate and the signature, each preceded by its length. */
    private static byte[] signatureBytes(CodeSigning.Signed signed) {
        ByteBuffer b = ByteBuffer.allocate(8 + signed.signer().length + signed.signature().length);
        b.putInt(signed.signer().length).put(signed.signer());
        b.putInt(signed.signature().length).put(signed.signature());
        return b.array();
    }

    private CodeSigning.Signed readSignature(String hash) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(signatureFile(hash)));
        try {
            byte[] signer = new byte[b.getInt()];
            b.get(signer);
            byte[] signature = new byte[b.getInt()];
            b.get(signature);
            return signer.length == 0 && signature.length == 0 ? CodeSigning.Signed.NONE
                    : new CodeSigning.Signed(signer, signature);
        } catch (RuntimeException e) {
            throw new IOException("its signature file is damaged", e);
        }
    }
}
