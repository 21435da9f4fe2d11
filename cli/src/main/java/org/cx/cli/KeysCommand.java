package org.cx.cli;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.security.Authority;
import org.cx.security.Credential;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx keys}: the network's certificate authority and the credentials it issues. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"Makes a network's certificate authority and issues, lists and revokes its credentials.",
            "Every connection of a network is TLS between holders of credentials of one authority; a credential",
            "names its holder's role (server, producer, user, admin), and only that role is allowed. On one",
            "machine the first 'cx server' makes a local authority in ~/.cx/authority and the same user's",
            "processes issue themselves credentials from it; across machines, issue a credential per machine",
            "here and copy its directory there (docs/security.md)."},
        subcommands = {KeysCommand.Init.class, KeysCommand.Issue.class, KeysCommand.Revoke.class,
            KeysCommand.ListIssued.class})
final class KeysCommand extends Group {

    /** The authority's directory option, shared by every subcommand. */
    static final class AuthorityOption {
        @Option(names = "--authority", paramLabel = "DIR",
                description = "The authority's directory. Default: ~/.cx/authority (or under $CX_HOME).")
        Path dir;

        Path dir() {
            return dir != null ? dir : CxHome.authorityDir();
        }
    }

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Makes a new certificate authority (keep its ca-key.pem on this machine only).")
    static final class Init extends Printing implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        AuthorityOption authority;

        @Option(names = "--network", paramLabel = "NAME", description = "The network's name, in the authority's "
                + "certificate. Default: this host's name.")
        String network;

        @Override
        public Integer call() throws Exception {
            String name = network != null ? network : InetAddress.getLocalHost().getHostName();
            Authority made = Authority.create(authority.dir(), name);
            out().println("made the certificate authority of network '" + name + "' in " + made.dir());
            out().println("issue credentials with: cx keys issue server|producer|user|admin NAME --out DIR");
            return 0;
        }
    }

    @Command(name = "issue", mixinStandardHelpOptions = true,
            description = {"Issues a credential and writes it to a directory (cert.pem, key.pem, ca.pem).",
                "Copy that directory to the machine that will use it, and pass it with --credentials DIR."})
    static final class Issue extends Printing implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        AuthorityOption authority;

        @Parameters(index = "0", paramLabel = "ROLE", description = "server, producer, user or admin.")
        String role;

        @Parameters(index = "1", paramLabel = "NAME", description = "Who holds it: a host for a server or a "
                + "producer, a person for a user (shown in logs, owns computations, is accounted).")
        String name;

        @Option(names = "--out", paramLabel = "DIR", description = "Where to write it. Default: ./ROLE-NAME.")
        Path out;

        @Option(names = "--valid", defaultValue = "365d", paramLabel = "DURATION",
                description = "How long it is valid. Default: ${DEFAULT-VALUE}.")
        Duration valid;

        @Override
        public Integer call() throws Exception {
            CredentialRole parsed = CredentialRole.parse(role);
            Path dir = out != null ? out : Path.of(parsed.label() + "-" + name);
            if (Files.exists(dir.resolve(Credential.KEY))) {
                throw new IllegalArgumentException(dir + " already holds a credential; choose another --out");
            }
            Authority opened = Authority.open(authority.dir());
            Credential credential = opened.issue(parsed, name, valid);
            credential.write(dir);
            if (Files.exists(opened.revocationList())) {
                Files.copy(opened.revocationList(), dir.resolve(Authority.REVOKED));
            }
            out().println("issued a " + parsed.label() + " credential to '" + name + "' (serial "
                    + credential.certificate().getSerialNumber().toString(16) + ", valid until "
                    + credential.certificate().getNotAfter().toInstant() + ") in " + dir);
            return 0;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = {"Revokes credentials: servers refuse them from their next connection on.",
                "Servers on this machine read the authority's list; copy revoked.crl into the credential",
                "directory of servers on other machines."})
    static final class Revoke extends Printing implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        AuthorityOption authority;

        @Parameters(paramLabel = "SERIAL|NAME", arity = "1..*",
                description = "A credential's serial (hex, as 'cx keys list' shows it), or a holder's name: all of "
                        + "that holder's credentials.")
        List<String> which;

        @Override
        public Integer call() throws Exception {
            Authority opened = Authority.open(authority.dir());
            List<Authority.Issued> issued = opened.issued();
            int revoked = 0;
            for (String w : which) {
                List<Authority.Issued> matching = issued.stream()
                        .filter(i -> i.name().equals(w) || i.serial().toString(16).equals(w.toLowerCase())).toList();
                if (matching.isEmpty()) {
                    throw new IllegalArgumentException("this authority issued no credential with serial or name '"
                            + w + "' (see cx keys list)");
                }
                for (Authority.Issued i : matching) {
                    opened.revoke(i.serial());
                    revoked++;
                    out().println("revoked " + i.role().label() + " " + i.name() + " (serial "
                            + i.serial().toString(16) + ")");
                }
            }
            out().println(revoked + " revoked; the list is " + opened.revocationList());
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the credentials issued.")
    static final class ListIssued extends Printing implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        AuthorityOption authority;

        @Override
        public Integer call() throws Exception {
            Authority opened = Authority.open(authority.dir());
            out().printf("%-34s %-9s %-30s %-22s %s%n", "SERIAL", "ROLE", "NAME", "VALID UNTIL", "STATE");
            for (Authority.Issued i : opened.issued()) {
                out().printf("%-34s %-9s %-30s %-22s %s%n", i.serial().toString(16), i.role().label(), i.name(),
                        i.notAfter(), i.revoked() ? "revoked" : java.time.Instant.now().isAfter(i.notAfter())
                                ? "expired" : "valid");
            }
            return 0;
        }
    }
}
