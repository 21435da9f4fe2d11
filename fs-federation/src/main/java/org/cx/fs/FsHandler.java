package org.cx.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;
import org.cx.fs.FsException.Code;
import org.cx.security.CodeSigning;
import org.cx.security.CredentialRole;
import org.cx.security.FileGrant;
import org.cx.security.PeerIdentity;
import org.cx.security.Tls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of a name service's or file server's connection, after the frame decoder: it learns who calls
 * ({@code hello}, once per connection: the credential's name and role; for a producer's credential, the owner of the
 * task it acts for; with plain connections the declared user), decodes JSON requests and hands them and DATA frames
 * to the service. A malformed frame or request is refused with an error
 * reply, and the connection goes on; only a frame that breaks the framing ends it. The accounting service's handler
 * is one too.
 */
public abstract class FsHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(FsHandler.class);

    /** The caller, once it said hello; null before. */
    protected Caller caller;
    /** Whether the caller holds a server's credential (another process of the service). */
    protected boolean server;

    @Override
    protected final void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        byte kind = frame.readByte();
        if (kind == FsFrames.DATA) {
            if (caller == null) {
                refuse(ctx, new FsException(Code.EINVAL, "data before hello"));
                return;
            }
            data(ctx, frame);
            return;
        }
        ObjectNode request;
        try {
            JsonNode node = Json.MAPPER.readTree((java.io.InputStream) new ByteBufInputStream(frame));
            if (kind != FsFrames.JSON || !(node instanceof ObjectNode o) || !o.path("op").isTextual()) {
                throw new FsException(Code.EINVAL, "a frame of kind " + kind + " is no request: expected a JSON "
                        + "object with an 'op'");
            }
            request = o;
        } catch (IOException e) {
            refuse(ctx, e instanceof FsException f ? f : new FsException(Code.EINVAL, "not JSON: " + e.getMessage()));
            return;
        }
        String op = request.get("op").asText();
        if (op.equals("hello")) {
            hello(ctx, request);
            return;
        }
        if (caller == null) {
            refuse(ctx, new FsException(Code.EINVAL, "'" + op + "' before hello"));
            return;
        }
        try {
            request(ctx, op, request);
        } catch (FsException e) {
            refuse(ctx, e);
        } catch (RuntimeException e) {
            LOG.warn("{} from {} failed", op, ctx.channel().remoteAddress(), e);
            refuse(ctx, new FsException(Code.EIO, op + " failed: " + e));
        }
    }

    private void hello(ChannelHandlerContext ctx, ObjectNode request) {
        if (caller != null) {
            // Once only: task code on a connection its producer's relay opened for one owner must not become another.
            refuse(ctx, new FsException(Code.EINVAL, "a connection says hello once; it is " + caller.name() + "'s"));
            return;
        }
        PeerIdentity peer = ctx.pipeline().get(SslHandler.class) == null ? null : Tls.peer(ctx.channel());
        String user = request.path("user").asText("");
        if ((peer == null || peer.role() == CredentialRole.PRODUCER) && !user.matches("[A-Za-z0-9._@-]{1,64}")) {
            refuse(ctx, new FsException(Code.EINVAL, "hello must name a user (1 to 64 letters, digits, '.', "
                    + "'_', '@' or '-')"));
            return;
        }
        if (peer == null) {
            caller = new Caller(user, false);
            server = true; // plain connections take every peer on its word
        } else if (peer.role() == CredentialRole.PRODUCER) {
            // A producer acts as itself, or for the owner of the task that asks on its task server's signed word
            // that it runs that user's tasks; never as an admin or as the service.
            String refused = user.equals(peer.name()) ? null : grantRefusal(request, user, peer.name());
            if (refused != null) {
                refuse(ctx, new FsException(Code.EACCES, "producer " + peer.name() + " may not act for " + user + ": "
                        + refused));
                return;
            }
            caller = new Caller(user, false);
            server = false;
        } else {
            caller = new Caller(peer.name(), peer.role() == CredentialRole.ADMIN);
            server = peer.role() == CredentialRole.SERVER;
        }
        reply(ctx, hello(request, Json.object().put("ok", true).put("as", caller.name())));
    }

    /** This service's credential, which checks the grants producers show. */
    protected abstract Tls tls();

    /** Why {@code producer}'s hello may not act for {@code user}, or null if its grant says it may. */
    private String grantRefusal(ObjectNode hello, String user, String producer) {
        String text = hello.path("grant").asText("");
        if (text.isEmpty()) {
            return "it shows no grant from a task server";
        }
        try {
            CodeSigning.Signed signed = new CodeSigning.Signed(
                    Base64.getDecoder().decode(hello.path("grantSigner").asText("")),
                    Base64.getDecoder().decode(hello.path("grantSignature").asText("")));
            FileGrant grant = FileGrant.check(tls(), text, signed, producer, Instant.now());
            return grant.owner().equals(user) ? null : "its grant is for " + grant.owner();
        } catch (IllegalArgumentException e) {
            return "its grant is malformed (" + e.getMessage() + ")";
        } catch (CodeSigning.RefusedCodeException e) {
            return "its grant is refused: " + e.getMessage();
        }
    }

    /** The reply to {@code hello}; a service adds what a caller should know of it. */
    protected ObjectNode hello(ObjectNode request, ObjectNode reply) {
        return reply;
    }

    /** A request after hello. */
    protected abstract void request(ChannelHandlerContext ctx, String op, ObjectNode request) throws FsException;

    /** A DATA frame after hello; the default refuses it. */
    protected void data(ChannelHandlerContext ctx, ByteBuf frame) {
        refuse(ctx, new FsException(Code.EINVAL, "data outside a transfer"));
    }

    protected static void reply(ChannelHandlerContext ctx, JsonNode reply) {
        ctx.writeAndFlush(FsFrames.json(ctx.alloc(), reply));
    }

    protected static void refuse(ChannelHandlerContext ctx, FsException e) {
        reply(ctx, error(e));
    }

    static ObjectNode error(FsException e) {
        return Json.object().put("error", e.getMessage()).put("code", e.code().name());
    }

    protected void requireServer(String op) throws FsException {
        if (!server && !caller.admin()) {
            throw new FsException(Code.EACCES, "only the file service's own processes and admins may " + op);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Tls.Failure tls = Tls.failure(cause);
        if (tls != null) {
            LOG.info("file service connection from {} refused in TLS: {}", ctx.channel().remoteAddress(), tls);
        } else if (cause instanceof java.io.IOException) {
            LOG.info("file service connection from {} closed: {}", ctx.channel().remoteAddress(),
                    cause.getMessage());
        } else {
            LOG.warn("file service connection from {} closed by a failure", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
