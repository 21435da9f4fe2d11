package org.cx.fs;

import java.util.Base64;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.cx.security.CodeSigning;

/**
 * Whom a producer acts for in the file service, and its task server's signed word that it may
 * ({@link org.cx.security.FileGrant}; none on a plain network, where a caller's declared user is taken as it is).
 *
 * @param user   the user acted for
 * @param grant  the grant's text; empty: none
 * @param signed the task server's signature of it
 */
public record ActingFor(String user, String grant, CodeSigning.Signed signed) {

    /** {@code user}, on a plain network. */
    public static ActingFor plainly(String user) {
        return new ActingFor(user, "", CodeSigning.Signed.NONE);
    }

    /** Adds the grant to a {@code hello}. */
    void addTo(ObjectNode hello) {
        hello.put("user", user);
        if (!grant.isEmpty()) {
            hello.put("grant", grant).put("grantSigner", Base64.getEncoder().encodeToString(signed.signer()))
                    .put("grantSignature", Base64.getEncoder().encodeToString(signed.signature()));
        }
    }
}
