package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BundleAssemblyTest {

    @Test
    void aChunkAnnouncingAHugeBundleCostsOnlyWhatItCarries() {
        // Once, ~100-byte messages announcing 256 MiB bundles made the server allocate 256 MiB each.
        BundleAssembly assembly = new BundleAssembly("ab".repeat(32));
        assertNull(assembly.addBytes(new Message.BundleChunk("ab".repeat(32), 0, 200 << 20, new byte[100])));
        assertTrue(assembly.capacity() <= 100, "held " + assembly.capacity() + " bytes");
    }

    @Test
    void chunksAddUpToTheBundleAndTheFirstCarriesTheSignature() {
        byte[] all = new byte[3_000];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        BundleAssembly assembly = new BundleAssembly("cd".repeat(32));
        byte[] signer = {1, 2};
        byte[] signature = {3};
        assertNull(assembly.addBytes(new Message.BundleChunk("cd".repeat(32), 0, 3_000,
                java.util.Arrays.copyOfRange(all, 0, 1_000), signer, signature)));
        assertNull(assembly.addBytes(new Message.BundleChunk("cd".repeat(32), 1_000, 3_000,
                java.util.Arrays.copyOfRange(all, 1_000, 1_100))));
        assertArrayEquals(all, assembly.addBytes(new Message.BundleChunk("cd".repeat(32), 1_100, 3_000,
                java.util.Arrays.copyOfRange(all, 1_100, 3_000))));
        assertArrayEquals(signer, assembly.signed().signer());
        assertArrayEquals(signature, assembly.signed().signature());
    }
}
