package org.cx.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who may vouch for code, and what a signature binds. */
class CodeSigningTest {
    private static final String HASH = "ab".repeat(32);
    @TempDir
    static Path dir;
    private static Authority authority;

    @BeforeAll
    static void make() throws IOException {
        authority = Authority.create(dir.resolve("ca"), "test");
    }

    private static String refusal(CodeSigning.Signed signed, String hash) {
        return assertThrows(CodeSigning.RefusedCodeException.class, () -> CodeSigning.verify(hash, signed,
                authority.certificate(), RevocationList.watching(authority.revocationList(),
                        authority.certificate()))).getMessage();
    }

    @Test
    void aUsersSignatureOfTheHashIsAccepted() throws Exception {
        Credential alice = authority.issue(CredentialRole.USER, "alice", Duration.ofDays(1));
        PeerIdentity signer = CodeSigning.verify(HASH, CodeSigning.sign(alice, HASH), authority.certificate(),
                RevocationList.none());
        assertEquals("user alice", signer.toString());
    }

    @Test
    void otherBytesUnsignedCodeAProducerAStrangerAndARevokedUserAreRefused() throws Exception {
        Credential bob = authority.issue(CredentialRole.USER, "bob", Duration.ofDays(1));
        assertTrue(refusal(CodeSigning.sign(bob, HASH), "cd".repeat(32)).contains("does not match"));
        assertTrue(refusal(CodeSigning.Signed.NONE, HASH).contains("not signed"));
        Credential producer = authority.issue(CredentialRole.PRODUCER, "p1", Duration.ofDays(1));
        assertTrue(refusal(CodeSigning.sign(producer, HASH), HASH).contains("only users run code"));
        Credential stranger = Authority.create(dir.resolve("other"), "other")
                .issue(CredentialRole.USER, "eve", Duration.ofDays(1));
        assertTrue(refusal(CodeSigning.sign(stranger, HASH), HASH).contains("not issued by this network's authority"));
        Credential mallory = authority.issue(CredentialRole.USER, "mallory", Duration.ofDays(1));
        java.nio.file.Files.setLastModifiedTime(authority.revocationList(),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 10_000));
        authority.revoke(mallory.certificate().getSerialNumber());
        assertTrue(refusal(CodeSigning.sign(mallory, HASH), HASH).contains("is revoked"));
    }
}
