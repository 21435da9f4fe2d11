package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.objenesis.strategy.StdInstantiatorStrategy;

/** What application bytes may name: the application's classes and plain JDK values, not JDK gadgets. */
class BodyCodecTest {
    private final BodyCodec codec = new BodyCodecs(getClass().getClassLoader()).forComputation(1);

    /** Why the codec refuses to decode {@code value}, written by a sender that does not check what it writes. */
    private String refusal(Object value) {
        Kryo unchecked = new Kryo();
        unchecked.setRegistrationRequired(false);
        unchecked.setReferences(true);
        unchecked.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        Output out = new Output(256, -1);
        unchecked.writeClassAndObject(out, value);
        byte[] bytes = out.toBytes();
        assertThrows(BodyCodec.UnencodableException.class, () -> codec.encode(value), "refused on writing too");
        return assertThrows(BodyCodec.UndecodableException.class, () -> codec.decode(bytes)).getMessage();
    }

    /** Holds what a task's field may not: a lambda. */
    static final class HoldsALambda {
        final java.util.function.LongUnaryOperator step = x -> x + 1;
    }

    @Test
    void eachGraphStandsAloneAfterAnother() {
        // One encoder writes a graph of many classes and shared objects, then small graphs naming some of them
        // again: each must decode in a codec that saw none of the others (a fresh process), so nothing of one graph's
        // class names or objects may carry over to the next, few or many.
        List<Object> shared = new ArrayList<>(List.of("shared"));
        List<Object> big = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Map<String, Object> node = new java.util.HashMap<>();
            node.put("next", shared);
            node.put("payload", i % 3 == 0 ? new TreeMap<>(Map.of("k", i)) : i % 3 == 1 ? new HashSet<>(List.of(i))
                    : node);
            big.add(node);
        }
        List<Object> small = new ArrayList<>();
        small.add(small);
        small.add(new TreeMap<>(Map.of("only", 1)));
        for (Object value : List.of(big, small, big, small, small)) {
            byte[] bytes = codec.encode(value);
            List<?> back = (List<?>) new BodyCodecs(getClass().getClassLoader()).forComputation(2).decode(bytes);
            if (value == small) {
                assertSame(back, back.get(0), "a reference to itself stays one");
                assertEquals(Map.of("only", 1), back.get(1));
            } else {
                assertEquals(100, back.size());
                assertSame(((Map<?, ?>) back.get(0)).get("next"), ((Map<?, ?>) back.get(99)).get("next"),
                        "one shared object");
                assertSame(back.get(2), ((Map<?, ?>) back.get(2)).get("payload"), "a map holding itself");
            }
        }
    }

    @Test
    void aLambdaIsRefusedWhenEncodedNamingTheFieldThatHoldsIt() {
        String reason = assertThrows(BodyCodec.UnencodableException.class,
                () -> codec.encode(new HoldsALambda(), "task HoldsALambda")).getMessage();
        assertTrue(reason.startsWith("cannot encode task HoldsALambda: "), reason);
        assertTrue(reason.contains("is a lambda") && reason.contains("use a named class"), reason);
        assertTrue(reason.contains("step (" + HoldsALambda.class.getName() + ")"), "names the field: " + reason);
    }

    @Test
    void aJdkClassOutsideTheAllowListIsRefusedWhenEncoded() {
        String reason = assertThrows(BodyCodec.UnencodableException.class,
                () -> codec.encode(List.of(new java.util.concurrent.locks.ReentrantLock()))).getMessage();
        assertTrue(reason.contains("java.util.concurrent.locks.ReentrantLock") && reason.contains("allow-list"),
                reason);
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
    void primitiveArraysTravelInBulkAtTheirOwnSize() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        java.util.Random random = new java.util.Random(seed);
        int n = 100_000 + random.nextInt(1000);
        long[] longs = random.longs(n).toArray();
        int[] ints = random.ints(n).toArray();
        double[] doubles = random.doubles(n).toArray();
        float[] floats = new float[n];
        short[] shorts = new short[n];
        char[] chars = new char[n];
        for (int i = 0; i < n; i++) {
            floats[i] = random.nextFloat();
            shorts[i] = (short) random.nextInt();
            chars[i] = (char) random.nextInt();
        }
        byte[] encoded = codec.encode(longs);
        assertTrue(encoded.length <= 8L * n + 16, "8 bytes per long, not varints: " + encoded.length);
        assertArrayEquals(longs, (long[]) codec.decode(encoded));
        assertArrayEquals(ints, (int[]) codec.decode(codec.encode(ints)));
        assertArrayEquals(doubles, (double[]) codec.decode(codec.encode(doubles)));
        assertArrayEquals(floats, (float[]) codec.decode(codec.encode(floats)));
        assertArrayEquals(shorts, (short[]) codec.decode(codec.encode(shorts)));
        assertArrayEquals(chars, (char[]) codec.decode(codec.encode(chars)));
        Object[] shared = {longs, longs, new long[0], null};
        Object[] back = (Object[]) codec.decode(codec.encode(shared));
        assertSame(back[0], back[1], "references kept");
        assertEquals(0, ((long[]) back[2]).length);
        assertNull(back[3]);
    }

    @Test
    void anArrayLongerThanItsBytesIsRefused() {
        byte[] encoded = codec.encode(new long[] {1, 2, 3});
        byte[] truncated = java.util.Arrays.copyOf(encoded, encoded.length - 8);
        assertThrows(BodyCodec.UndecodableException.class, () -> codec.decode(truncated));
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
