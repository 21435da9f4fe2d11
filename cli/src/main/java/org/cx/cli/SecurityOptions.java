package org.cx.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import picocli.CommandLine.Option;

/** How a command authenticates: a credential directory, this user's local credentials, or (explicitly) not at all. */
final class SecurityOptions {

    @Option(names = "--credentials", paramLabel = "DIR",
            description = "The credential to use (a directory written by 'cx keys issue': cert.pem, key.pem, "
                    + "ca.pem). Default: this user's local one in ~/.cx (or $CX_HOME), issued from the local "
                    + "authority on first use.")
    Path credentials;

    @Option(names = "--insecure",
            description = "Plain connections: no TLS, no authentication, roles taken on the peer's word. Anyone who "
                    + "can reach the port owns the network; for isolated experiments only.")
    boolean insecure;

    /**
     * The TLS of this command in {@code role}, or null with {@code --insecure} (after a warning on standard error).
     *
     * @param mayFound whether this command may make the local authority when there is none (a server may)
     */
    Tls tls(CredentialRole role, boolean mayFound) throws IOException {
        if (insecure) {
            if (credentials != null) {
                throw new IllegalArgumentException("--insecure and --credentials exclude each other");
            }
            System.err.println("cx: WARNING: --insecure: connections are neither authenticated nor encrypted");
            return null;
        }
        return credentials != null ? CxHome.load(credentials) : CxHome.local(role, mayFound);
    }
}
