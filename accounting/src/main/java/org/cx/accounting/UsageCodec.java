package org.cx.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.cx.wire.Usage;

/** A usage row as it travels in a batch: a JSON array of its fields in the order of {@link Usage}'s. */
final class UsageCodec {
    private static final int FIELDS = 13;

    private UsageCodec() {
    }

    static void encode(Usage u, ArrayNode into) {
        into.addArray().add(u.intervalStart()).add(u.kind().label()).add(u.consumer()).add(u.computation())
                .add(u.producer()).add(u.contributor()).add(u.hostType()).add(u.executions()).add(u.cpuNanos())
                .add(u.wallNanos()).add(u.bytesIn()).add(u.bytesOut()).add(u.messages());
    }

    /** The row {@code a} encodes; IllegalArgumentException saying what is wrong with it. */
    static Usage decode(JsonNode a) {
        if (!a.isArray() || a.size() != FIELDS) {
            throw new IllegalArgumentException("a row is an array of " + FIELDS + " fields");
        }
        long interval = number(a, 0, "interval");
        if (interval % Usage.INTERVAL_MILLIS != 0) {
            throw new IllegalArgumentException("interval " + interval + " does not start a price interval");
        }
        return new Usage(interval, Usage.Kind.of(a.get(1).asText()), name(a, 2, "consumer", 64, true),
                number(a, 3, "computation"), name(a, 4, "producer", 128, false), name(a, 5, "contributor", 64, false),
                name(a, 6, "host type", 64, false), number(a, 7, "executions"), number(a, 8, "cpu"),
                number(a, 9, "wall"), number(a, 10, "bytes in"), number(a, 11, "bytes out"),
                number(a, 12, "messages"));
    }

    private static long number(JsonNode a, int i, String what) {
        JsonNode v = a.get(i);
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw new IllegalArgumentException(what + " must be a whole number, not negative: " + v);
        }
        return v.asLong();
    }

    private static String name(JsonNode a, int i, String what, int max, boolean mayBeEmpty) {
        JsonNode v = a.get(i);
        if (!v.isTextual() || v.asText().length() > max || (!mayBeEmpty && v.asText().isEmpty())) {
            throw new IllegalArgumentException(what + " must be text of " + (mayBeEmpty ? 0 : 1) + " to " + max
                    + " characters: " + v);
        }
        return v.asText();
    }
}
