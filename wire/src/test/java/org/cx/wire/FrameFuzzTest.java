package org.cx.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Coverage-guided fuzzing (Jazzer) of the frame body decoder and, through the class id its first bytes pick, every
 * message codec. Any bytes either decode to a message, which then encodes again, or are refused with a
 * {@link MalformedMessageException}; no other exception escapes, and nothing allocates beyond what the frame holds
 * (this module's tests run in a 256 MiB heap, so a length taken on trust fails them).
 *
 * <p>{@code ./mvnw verify} fuzzes for a short while; {@code scripts/fuzz.sh DURATION} for as long as asked. The
 * inputs under {@code src/test/resources/org/cx/wire/FrameFuzzTestInputs/} (each input that once did harm, and every
 * crash Jazzer finds is written there) run as regression tests on every build.
 */
class FrameFuzzTest {
    private static final int MAX = 1 << 20;

    @FuzzTest(maxDuration = "15s")
    void anyFrameIsAMessageOrIsRefused(byte[] frame) {
        Message message;
        try {
            message = MessageDecoder.decode(Unpooled.wrappedBuffer(frame));
        } catch (MalformedMessageException refused) {
            return;
        }
        EmbeddedChannel out = new EmbeddedChannel(new MessageEncoder(MAX));
        try {
            out.writeOutbound(message);
            for (ByteBuf b; (b = out.readOutbound()) != null; ) {
                b.release();
            }
        } finally {
            out.finishAndReleaseAll();
        }
    }
}
