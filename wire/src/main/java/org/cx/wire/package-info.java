/**
 * The CX wire protocol: one package for every message between consumers, servers and producers.
 *
 * <h2>Framing</h2>
 * Each frame is a 4-byte big-endian length followed by that many bytes of Kryo-encoded {@link org.cx.wire.Message}.
 * Frames longer than the configured maximum ({@link org.cx.wire.WireConfig#maxFrameBytes}) are refused before they
 * are buffered. Only the classes registered by {@link org.cx.wire.ProtocolCodec} can be read from a frame; anything
 * else closes that one connection with a logged reason.
 *
 * <h2>Handshake</h2>
 * <ol>
 *   <li>The client sends {@link org.cx.wire.Message.Hello} with the protocol version and its role.</li>
 *   <li>The server answers {@link org.cx.wire.Message.Welcome}, or {@link org.cx.wire.Message.Refused} with the reason
 *       and closes, e.g. on a version mismatch or when the first frame is not a Hello.</li>
 * </ol>
 *
 * <h2>Application bytes</h2>
 * Task bodies and argument values travel as opaque byte arrays: servers route them without loading application
 * classes. Producers and consumers turn them into objects with {@link org.cx.wire.BodyCodec}, one per computation,
 * whose classes resolve only through that computation's {@link org.cx.wire.ComputationClassLoader}. Java
 * serialization is never used.
 */
package org.cx.wire;
