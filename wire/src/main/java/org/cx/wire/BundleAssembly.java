package org.cx.wire;

import org.cx.security.CodeSigning;

/**
 * Collects the {@link Message.BundleChunk}s of one code bundle, which arrive in order on one connection, and
 * checks the result against the hash it was asked for.
 */
public final class BundleAssembly {
    /** Largest bundle accepted: {@code -Dcx.maxBundleBytes}, default 256 MiB. */
    public static final int MAX_BYTES = Integer.getInteger("cx.maxBundleBytes", 256 << 20);

    private final String hash;
    /** What arrived so far; grows with the chunks, so that a chunk claiming a large total costs only its data. */
    private byte[] bytes = new byte[0];
    private int total = -1;
    private int received;
    private CodeSigning.Signed signed = CodeSigning.Signed.NONE;

    public BundleAssembly(String hash) {
        this.hash = hash;
    }

    /**
     * Adds the next chunk and, with the last, verifies the bundle (hashing it: on the caller's thread).
     *
     * @return the verified bundle once the last chunk is in, else null
     * @throws CodeBundle.InvalidBundleException for a chunk out of order, a bundle over the limit, or bytes whose
     *     hash or format is wrong
     */
    public CodeBundle add(Message.BundleChunk chunk) {
        byte[] all = addBytes(chunk);
        return all == null ? null : CodeBundle.verified(hash, all, signed);
    }

    /** The bundle's size, as its first chunk announced; 0 before it. */
    public int total() {
        return Math.max(0, total);
    }

    /** Bytes held for what arrived so far (tests). */
    int capacity() {
        return bytes.length;
    }

    /** The signature the first chunk carried. */
    public CodeSigning.Signed signed() {
        return signed;
    }

    /**
     * Adds the next chunk; returns all the bytes once the last is in (not yet verified: see
     * {@link CodeBundle#verified}), else null.
     *
     * @throws CodeBundle.InvalidBundleException for a chunk out of order or a bundle over the limit
     */
    public byte[] addBytes(Message.BundleChunk chunk) {
        if (chunk.total() > MAX_BYTES) {
            throw new CodeBundle.InvalidBundleException("code bundle " + CodeBundle.shortHash(hash) + " has "
                    + chunk.total() + " bytes, over the limit of " + MAX_BYTES + " (-Dcx.maxBundleBytes)");
        }
        if (total < 0) {
            total = chunk.total();
            signed = new CodeSigning.Signed(chunk.signer(), chunk.signature());
        }
        if (chunk.total() != total || chunk.offset() != received) {
            throw new CodeBundle.InvalidBundleException("code bundle " + CodeBundle.shortHash(hash)
                    + ": a chunk at " + chunk.offset() + " of " + chunk.total() + " bytes arrived where byte "
                    + received + " of " + total + " was expected");
        }
        int length = chunk.data().length;
        if (received + length > bytes.length) {
            bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(total, Math.max(received + length,
                    2L * bytes.length)));
        }
        System.arraycopy(chunk.data(), 0, bytes, received, length);
        received += length;
        return received == total ? bytes : null;
    }

    /** The chunks that carry {@code bundle}'s bytes, in order. */
    public static Message.BundleChunk[] chunks(CodeBundle bundle) {
        CodeSigning.Signed signed = bundle.signed();
        byte[] all = bundle.bytes();
        int n = Math.max(1, (all.length + CodeBundle.CHUNK_BYTES - 1) / CodeBundle.CHUNK_BYTES);
        Message.BundleChunk[] chunks = new Message.BundleChunk[n];
        for (int i = 0; i < n; i++) {
            int from = i * CodeBundle.CHUNK_BYTES;
            int to = Math.min(all.length, from + CodeBundle.CHUNK_BYTES);
            byte[] data = java.util.Arrays.copyOfRange(all, from, to);
            chunks[i] = i == 0 ? new Message.BundleChunk(bundle.hash(), from, all.length, data, signed.signer(),
                    signed.signature()) : new Message.BundleChunk(bundle.hash(), from, all.length, data);
        }
        return chunks;
    }
}
