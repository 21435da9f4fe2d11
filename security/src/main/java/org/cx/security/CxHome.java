package org.cx.security;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's CX directory ({@code -Dcx.home}, else {@code $CX_HOME}, else {@code ~/.cx}): on one machine it holds a
 * local authority ({@code authority/}) and the credentials this user's processes issued themselves from it
 * ({@code credentials/ROLE/}). The first {@code cx server} makes the authority; the same user's producers and
 * consumers then find it, so a single-machine network needs no step of its own. Across machines, credentials are
 * issued with {@code cx keys issue} and copied.
 */
public final class CxHome {
    private static final Logger LOG = LoggerFactory.getLogger(CxHome.class);
    /** How long a credential issued for local use lasts; it is issued again when a tenth of that is left. */
    static final Duration LOCAL_VALIDITY = Duration.ofDays(365);
    /** What this process loaded, by directory and role: loaded once, each connection then only handshakes. */
    private static final java.util.Map<String, Tls> LOADED = new java.util.concurrent.ConcurrentHashMap<>();

    private CxHome() {
    }

    public static Path dir() {
        String property = System.getProperty("cx.home");
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        String env = System.getenv("CX_HOME");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".cx");
    }

    public static Path authorityDir() {
        return dir().resolve("authority");
    }

    public static Path credentialDir(CredentialRole role) {
        return dir().resolve("credentials").resolve(role.label());
    }

    /**
     * This user's TLS for {@code role} on this machine: the credential in {@link #credentialDir} if it is there and
     * fresh, else one issued now by the local authority, which is made first if there is none and {@code mayFound}.
     *
     * @throws IOException saying what to do when there is neither a credential nor an authority
     */
    public static Tls local(CredentialRole role, boolean mayFound) throws IOException {
        return local(role, null, mayFound);
    }

    /**
     * As {@link #local(CredentialRole, boolean)}, for a credential of its own named {@code name} (kept in
     * {@code credentials/ROLE-NAME}): one machine standing in for several owners, as benches of validated
     * computations do. Null: this user's usual one.
     */
    public static Tls local(CredentialRole role, String name, boolean mayFound) throws IOException {
        if (name != null && !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a local credential's name is 1 to 64 letters, digits, '.', '_' or "
                    + "'-', got '" + name + "'");
        }
        Path dir = dir();
        String key = dir.toAbsolutePath() + "#" + role + "#" + name;
        Tls known = LOADED.get(key);
        if (known != null && known.credential().fresh()) {
            return known;
        }
        Tls tls = issueOrRead(dir, role, name, mayFound);
        LOADED.put(key, tls);
        return tls;
    }

    /** As {@link #local}, for defaults that cannot throw checked exceptions. */
    public static Tls localOrFail(CredentialRole role, boolean mayFound) {
        try {
            return local(role, mayFound);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e.getMessage(), e);
        }
    }

    private static Tls issueOrRead(Path dir, CredentialRole role, String name, boolean mayFound) throws IOException {
        Files.createDirectories(dir);
        try (FileChannel lockFile = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
             FileLock lock = lockFile.lock()) {
            assert lock.isValid(); // held across processes until the try ends
            Path credentials = name == null ? credentialDir(role)
                    : credentialDir(role).resolveSibling(role.label() + "-" + name);
            if (Files.exists(credentials.resolve(Credential.CERTIFICATE))) {
                Credential credential = Credential.read(credentials);
                if (credential.fresh() || !Authority.exists(authorityDir())) {
                    return Tls.of(credential, revocations(credentials, credential));
                }
            }
            if (!Authority.exists(authorityDir())) {
                if (!mayFound) {
                    throw new IOException("no " + role.label() + " credential in " + credentials
                            + " and no local authority in " + authorityDir() + ": start a cx server on this machine"
                            + " first, or copy a credential issued with 'cx keys issue " + role.label()
                            + " NAME' there (or pass --credentials DIR), or use --insecure");
                }
                Authority.create(authorityDir(), hostName());
                LOG.info("made a local certificate authority in {} (credentials for this user's processes are "
                        + "issued from it; see docs/security.md to span machines)", authorityDir());
            }
            Authority authority = Authority.open(authorityDir());
            Credential credential = authority.issue(role, name == null ? localName(role) : name, LOCAL_VALIDITY);
            credential.write(credentials);
            return Tls.of(credential, RevocationList.watching(authority.revocationList(), authority.certificate()));
        }
    }

    /** The TLS of the credential in {@code dir} (as {@code cx keys issue} wrote it). */
    public static Tls load(Path dir) throws IOException {
        Credential credential = Credential.read(dir);
        return Tls.of(credential, revocations(dir, credential));
    }

    /**
     * Where a holder reads revocations: a {@value Authority#REVOKED} beside its credential (copied there from the
     * issuing machine), else the local authority's if it is this credential's.
     */
    private static RevocationList revocations(Path credentialDir, Credential credential) throws IOException {
        Path beside = credentialDir.resolve(Authority.REVOKED);
        if (Files.exists(beside)) {
            return RevocationList.watching(beside, credential.authority());
        }
        Path local = authorityDir().resolve(Authority.REVOKED);
        if (Files.exists(local) && Authority.exists(authorityDir())
                && Authority.open(authorityDir()).certificate().equals(credential.authority())) {
            return RevocationList.watching(local, credential.authority());
        }
        return RevocationList.none();
    }

    private static String localName(CredentialRole role) {
        return role.consumes() ? System.getProperty("user.name", "user") + "@" + hostName() : hostName();
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
