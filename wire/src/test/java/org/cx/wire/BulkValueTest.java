package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Primitive arrays of large values go between the array and the value store's chunks directly: the same bytes as
 * through an array, elements split across chunks included, in every kind of store.
 */
class BulkValueTest {
    private static final long COMPUTATION = 7;

    @Test
    void arraysInChunksOfPooledMemory() throws IOException {
        try (ValueStore store = ValueStore.temporary("bulk-test")) {
            roundTrips(store, 3 * ValueStore.inlineLimit());
        }
    }

    @Test
    void arraysInChunksWhoseSizeIsNoMultipleOfAnElement() throws IOException {
        ValueStore store = ValueStore.inMemory(100, 1001, new Random(1), () -> 0);
        roundTrips(store, 20_000);
    }

    @Test
    void arraysSpilledToAFile() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("cx-bulk-test");
        try (ValueStore store = new ValueStore(dir, 0)) {
            roundTrips(store, 3 * ValueStore.inlineLimit());
        }
    }

    private static void roundTrips(ValueStore store, long bytes) throws IOException {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        Random random = new Random(seed);
        BodyCodec codec = new BodyCodecs(BulkValueTest.class.getClassLoader(), 0, store).forComputation(COMPUTATION);
        int n = (int) (bytes / 8) + random.nextInt(1000);
        check(codec, store, random.longs(n).toArray(), long[].class);
        check(codec, store, random.ints(n + 1).toArray(), int[].class);
        check(codec, store, random.doubles(n + 3).toArray(), double[].class);
        short[] shorts = new short[2 * n + 1];
        char[] chars = new char[2 * n + 3];
        float[] floats = new float[n + 5];
        for (int i = 0; i < shorts.length; i++) {
            shorts[i] = (short) random.nextInt();
        }
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) random.nextInt();
        }
        for (int i = 0; i < floats.length; i++) {
            floats[i] = random.nextFloat();
        }
        check(codec, store, shorts, short[].class);
        check(codec, store, chars, char[].class);
        check(codec, store, floats, float[].class);

        // Arrays among other objects, as in a task's result: it streams into the store like an array alone, and the
        // runs start and end inside Kryo's buffer.
        Object[] mixed = {"seed " + seed, random.longs(n / 2 + 1).toArray(), 3, random.doubles(n / 2 + 2).toArray(),
            "end"};
        assertArrayEquals(mixed, (Object[]) codec.decode(encoded(codec, store, mixed)));
    }

    @Test
    void aSmallValueTravelsInlineWhateverItHolds() {
        try (ValueStore store = ValueStore.temporary("bulk-test")) {
            BodyCodec codec = new BodyCodecs(BulkValueTest.class.getClassLoader(), 0, store)
                    .forComputation(COMPUTATION);
            Object[] small = {"small", new long[100], 5};
            byte[] bytes = codec.encodeValue(small, COMPUTATION, () -> "small");
            assertTrue(!ValueRef.is(bytes) && store.count() == 0, "inline, nothing held");
            assertArrayEquals(codec.encode(small), bytes);
            byte[] middle = codec.encodeValue(new long[20_000], COMPUTATION, () -> "160 KB"); // past the buffer
            assertTrue(!ValueRef.is(middle) && store.count() == 0, "under the inline limit: inline, nothing held");
            assertArrayEquals(new long[20_000], (long[]) codec.decode(middle));
        }
    }

    private static <A> void check(BodyCodec codec, ValueStore store, A array, Class<A> type) throws IOException {
        byte[] ref = encoded(codec, store, array);
        Object back = codec.decode(ref);
        assertTrue(type.isInstance(back));
        assertTrue(java.util.Objects.deepEquals(array, back), type.getSimpleName() + " read back differs");
    }

    /** Encodes {@code value} into the store and checks that it holds the bytes an array would have given. */
    private static byte[] encoded(BodyCodec codec, ValueStore store, Object value) throws IOException {
        Supplier<String> what = () -> value.getClass().getSimpleName();
        byte[] ref = codec.encodeValue(value, COMPUTATION, what);
        assertTrue(ValueRef.is(ref), "held by reference");
        try (InputStream in = store.open(ValueRef.of(ref))) {
            assertArrayEquals(codec.encode(value), in.readAllBytes(), "the bytes of an array's encoding");
        }
        return ref;
    }
}
