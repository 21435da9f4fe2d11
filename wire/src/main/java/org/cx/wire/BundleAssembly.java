package org.cx.wire;

/**
 * Collects the {@link Message.BundleChunk}s of one code bundle, which arrive in order on one connection, and
 * checks the result against the hash it was asked for.
 */
public final class BundleAssembly {
    /** Largest bundle accepted: {@code -Dcx.maxBundleBytes}, default 256 MiB. */
    public static final int MAX_BYTES = Integer.getInteger("cx.maxBundleBytes", 256 << 20);

    private final String hash;
    private byte[] bytes;
    private int received;

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
        return all == null ? null : CodeBundle.verified(hash, all);
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
        if (bytes == null) {
            bytes = new byte[chunk.total()];
        }
        if (chunk.total() != bytes.length || chunk.offset() != received) {
            throw new CodeBundle.InvalidBundleException("code bundle " + CodeBundle.shortHash(hash)
                    + ": a chunk at " + chunk.offset() + " of " + chunk.total() + " bytes arrived where byte "
                    + received + " of " + bytes.length + " was expected");
        }
        System.arraycopy(chunk.data(), 0, bytes, received, chunk.data().length);
        received += chunk.data().length;
        return received == bytes.length ? bytes : null;
    }

    /** The chunks that carry {@code bundle}'s bytes, in order. */
    public static Message.BundleChunk[] chunks(CodeBundle bundle) {
        byte[] all = bundle.bytes();
        int n = Math.max(1, (all.length + CodeBundle.CHUNK_BYTES - 1) / CodeBundle.CHUNK_BYTES);
        Message.BundleChunk[] chunks = new Message.BundleChunk[n];
        for (int i = 0; i < n; i++) {
            int from = i * CodeBundle.CHUNK_BYTES;
            int to = Math.min(all.length, from + CodeBundle.CHUNK_BYTES);
            chunks[i] = new Message.BundleChunk(bundle.hash(), from, all.length,
                    java.util.Arrays.copyOfRange(all, from, to));
        }
        return chunks;
    }
}
