package org.cx.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A throw-away authority in a temporary directory (gone when the JVM exits) and credentials issued from it, for a
 * whole network in one process that should leave nothing in the user's {@code ~/.cx}: {@code cx demo}.
 */
public final class ThrowAwayCredentials {
    private static final Duration VALIDITY = Duration.ofDays(1);

    private final Authority authority;

    private ThrowAwayCredentials(Authority authority) {
        this.authority = authority;
    }

    public static ThrowAwayCredentials make() throws IOException {
        Path dir = Files.createTempDirectory("cx-authority");
        dir.toFile().deleteOnExit();
        for (String name : new String[] {Authority.KEY, Authority.CERTIFICATE, Authority.REVOKED, Authority.ISSUED}) {
            dir.resolve(name).toFile().deleteOnExit(); // deleted before the directory, which was registered first
        }
        return new ThrowAwayCredentials(Authority.create(dir, "throw-away"));
    }

    /** TLS for a new credential of {@code role} held by {@code name}. */
    public Tls tls(CredentialRole role, String name) throws IOException {
        return Tls.of(authority.issue(role, name, VALIDITY), RevocationList.none());
    }
}
