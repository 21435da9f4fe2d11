package org.cx.wire;

import org.cx.api.Continuation;

/**
 * A value stored into a successor's input, or into the consumer's result.
 *
 * @param to    the target input
 * @param value the value, encoded by {@link BodyCodec}
 */
public record ValueEnvelope(Continuation to, byte[] value) {
}
