package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What application bytes may name: the application's classes and plain JDK values, not JDK gadgets. */
class BodyCodecTest {
    private final BodyCodec codec = new BodyCodecs(getClass().getClassLoader()).forComputation(1);

    private String refusal(Object value) {
        byte[] bytes = codec.encode(value);
        return assertThrows(BodyCodec.UndecodableException.class, () -> codec.decode(bytes)).getMessage();
    }

    @Test
    void plainValuesComeThrough() {
        List<Object> values = new ArrayList<>(List.of("a", 1L, 2.5, new int[] {1, 2}, new String[] {"x"}));
        values.add(new TreeMap<>(Map.of("k", List.of(1, 2, 3))));
        values.add(new PriorityQueue<>(List.of(3, 1, 2)));
        values.add(java.time.Duration.ofSeconds(5));
        Object decoded = codec.decode(codec.encode(values));
        assertEquals(values.get(0), ((List<?>) decoded).get(0));
        assertEquals(values.get(5), ((List<?>) decoded).get(5));
    }

    @Test
    void aUrlWhoseHashCodeResolvesAHostIsRefused() throws Exception {
        // Decoding a HashSet<URL> once made the server and producer look up a host the sender chose.
        HashSet<Object> set = new HashSet<>();
        set.add(URI.create("http://sender-chosen.invalid/").toURL());
        String reason = refusal(set);
        assertTrue(reason.contains("java.net.URL") && reason.contains("outside the allow-list"), reason);
    }

    @Test
    void aJdkComparatorRunDuringDecodingIsRefused() {
        // A PriorityQueue's comparator runs while it is decoded: a JDK comparator from the wire is refused.
        PriorityQueue<Integer> queue = new PriorityQueue<>(Collections.reverseOrder());
        queue.addAll(List.of(1, 2, 3));
        String reason = refusal(queue);
        assertTrue(reason.contains("outside the allow-list"), reason);
    }
}
