package org.cx.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Mutually authenticated TLS 1.3 for one holder of a {@link Credential}: both ends of every connection present a
 * credential of the same network's authority. A peer is trusted when its certificate was signed by that authority,
 * is within its validity and is not on the revocation list; a connecting side also requires the peer it reached to
 * hold a {@link CredentialRole#SERVER} credential, so no producer or user credential can pose as a server. Host
 * names are not checked: identity is the credential's role and name, not an address.
 */
public final class Tls {
    /**
     * BoringSSL (netty-tcnative) where it loads, the JDK's TLS elsewhere or with {@code -Dcx.tlsProvider=jdk}: the
     * same protocol and checks, BoringSSL at a fraction of the CPU cost of the JDK's AES-GCM for bulk data.
     */
    static final SslProvider PROVIDER = !"jdk".equals(System.getProperty("cx.tlsProvider"))
            && io.netty.handler.ssl.OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;

    /** How long a TLS handshake may take before the connection is dropped. */
    public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private final Credential credential;
    private final RevocationList revocations;
    private final SslContext accepting;
    private final SslContext connecting;

    private Tls(Credential credential, RevocationList revocations) throws SSLException {
        this.credential = credential;
        this.revocations = revocations;
        this.accepting = SslContextBuilder.forServer(credential.key(), credential.certificate())
                .trustManager(new Trust(credential.authority(), revocations, null))
                .clientAuth(ClientAuth.REQUIRE)
                .sslProvider(PROVIDER)
                .protocols("TLSv1.3")
                .build();
        this.connecting = SslContextBuilder.forClient()
                .keyManager(credential.key(), credential.certificate())
                .trustManager(new Trust(credential.authority(), revocations, CredentialRole.SERVER))
                .endpointIdentificationAlgorithm(null)
                .sslProvider(PROVIDER)
                .protocols("TLSv1.3")
                .build();
    }

    /** TLS with {@code credential}, refusing peers whose serials {@code revocations} lists. */
    public static Tls of(Credential credential, RevocationList revocations) throws IOException {
        return new Tls(credential, revocations);
    }

    /** Who this holder is. */
    public PeerIdentity self() {
        return credential.identity();
    }

    public Credential credential() {
        return credential;
    }

    /**
     * The identity {@code certificate} names, if this network's authority issued it, it is valid and not revoked.
     *
     * @throws CertificateException saying which fails
     */
    public PeerIdentity verify(X509Certificate certificate) throws CertificateException {
        return PeerIdentity.verified(certificate, credential.authority(), revocations);
    }

    /** Signs code bundle {@code hash} as this holder (a user). */
    public CodeSigning.Signed sign(String hash) {
        return CodeSigning.sign(credential, hash);
    }

    /**
     * Who signed code bundle {@code hash}, if a user of this network did and is not revoked.
     *
     * @throws CodeSigning.RefusedCodeException saying why the code must not run
     */
    public PeerIdentity signerOf(String hash, CodeSigning.Signed signed) throws CodeSigning.RefusedCodeException {
        return CodeSigning.verify(hash, signed, credential.authority(), revocations);
    }

    /**
     * Who signed {@code text}, whatever their role, if this network's authority issued their credential and it is
     * not revoked.
     *
     * @throws CodeSigning.RefusedCodeException saying why not
     */
    public PeerIdentity signatory(String text, CodeSigning.Signed signed) throws CodeSigning.RefusedCodeException {
        return CodeSigning.signatory(text, signed, credential.authority(), revocations);
    }

    /** A handler for a connection this process accepted: it requires the peer's credential. */
    public SslHandler accepting(ByteBufAllocator allocator) {
        SslHandler handler = accepting.newHandler(allocator);
        handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT.toMillis());
        return handler;
    }

    /** A handler for a connection this process opened: the peer must be a server of the network. */
    public SslHandler connecting(ByteBufAllocator allocator) {
        SslHandler handler = connecting.newHandler(allocator);
        handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT.toMillis());
        return handler;
    }

    /**
     * An engine for a connection this process opens over a socket of its own (blocking clients that move bulk data):
     * the same checks as {@link #connecting}, in BoringSSL where it loads.
     */
    public SSLEngine clientEngine() {
        return connecting.newEngine(ByteBufAllocator.DEFAULT);
    }

    /** Blocking sockets that present this credential and require a server's (for tools and tests). */
    public javax.net.ssl.SSLSocketFactory socketFactory() throws SSLException {
        return jdk(SslContextBuilder.forClient().keyManager(credential.key(), credential.certificate())
                .trustManager(new Trust(credential.authority(), revocations, CredentialRole.SERVER))
                .endpointIdentificationAlgorithm(null)).getSocketFactory();
    }

    /** Blocking server sockets that present this credential and trust any of the network's (JMX connectors). */
    public javax.net.ssl.SSLServerSocketFactory serverSocketFactory() throws SSLException {
        return jdk(SslContextBuilder.forServer(credential.key(), credential.certificate())
                .trustManager(new Trust(credential.authority(), revocations, null))
                .clientAuth(ClientAuth.REQUIRE)).getServerSocketFactory();
    }

    /** {@code builder}'s context from the JDK's provider, whose blocking sockets the JDK's tools take. */
    private static javax.net.ssl.SSLContext jdk(SslContextBuilder builder) throws SSLException {
        return ((JdkSslContext) builder.sslProvider(SslProvider.JDK).protocols("TLSv1.3").build()).context();
    }

    /**
     * Blocking sockets that present this credential and trust a peer holding any credential of the network, a
     * producer's as well as a server's (clients of JMX connectors, which every process runs).
     */
    public javax.net.ssl.SSLSocketFactory anyPeerSocketFactory() throws SSLException {
        return jdk(SslContextBuilder.forClient().keyManager(credential.key(), credential.certificate())
                .trustManager(new Trust(credential.authority(), revocations, null))
                .endpointIdentificationAlgorithm(null)).getSocketFactory();
    }

    /**
     * The identity of the peer on {@code channel}, once its TLS handshake is done; null on a channel without TLS.
     *
     * @throws IllegalStateException if the handshake has not completed (nothing is read before it does)
     */
    public static PeerIdentity peer(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            return PeerIdentity.of((X509Certificate) ssl.engine().getSession().getPeerCertificates()[0]);
        } catch (SSLPeerUnverifiedException e) {
            throw new IllegalStateException("the peer on " + channel + " is not authenticated yet", e);
        }
    }

    /** How a connection failed in TLS, as {@link #failure} reads it. */
    public sealed interface Failure {
        /** The peer sent something that is not TLS (a process with plain connections). */
        record NotTls() implements Failure {
        }

        /** The handshake failed, for {@code reason} (the innermost cause's message). */
        record Handshake(String reason) implements Failure {
        }
    }

    /** How {@code cause} (as Netty reports it, maybe wrapped in a decoder exception) failed in TLS; null if not. */
    public static Failure failure(Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof NotSslRecordException) {
            return new Failure.NotTls();
        }
        if (c instanceof SSLException) {
            Throwable root = c;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return new Failure.Handshake(String.valueOf(root.getMessage()));
        }
        return null;
    }

    /** Checks a peer's certificate against the authority, its validity, the revocation list and the role required. */
    private static final class Trust extends X509ExtendedTrustManager {
        private final X509Certificate authority;
        private final RevocationList revocations;
        private final CredentialRole required;

        Trust(X509Certificate authority, RevocationList revocations, CredentialRole required) {
            this.authority = authority;
            this.revocations = revocations;
            this.required = required;
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0) {
                throw new CertificateException("the peer presented no certificate");
            }
            PeerIdentity identity = PeerIdentity.verified(chain[0], authority, revocations);
            if (required != null && identity.role() != required) {
                throw new CertificateException("the peer holds a " + identity.role().label()
                        + " credential, not a " + required.label() + " one");
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[] {authority};
        }
    }
}
