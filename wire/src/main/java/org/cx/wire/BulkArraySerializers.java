package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * Primitive arrays as their raw little-endian bytes, copied in bulk through a {@link ByteBuffer} view. Kryo's own
 * serializers write {@code long[]} and {@code int[]} as variable-length numbers, one at a time: about 9 bytes per
 * random {@code long}, and slowly. Here a {@code long[]} costs 8 bytes per element plus its length.
 */
final class BulkArraySerializers {
    /** Bytes moved per copy; bounds the scratch buffer each call allocates. */
    private static final int CHUNK_BYTES = 64 << 10;

    private BulkArraySerializers() {
    }

    /** Registers the bulk serializers as {@code kryo}'s defaults for long, int, double, float, short and char arrays. */
    static void register(Kryo kryo) {
        kryo.addDefaultSerializer(long[].class, new Bulk<>(Long.BYTES, a -> a.length, long[]::new,
                (b, a) -> b.asLongBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asLongBuffer().get(a.array, a.from, a.count)));
        kryo.addDefaultSerializer(int[].class, new Bulk<>(Integer.BYTES, a -> a.length, int[]::new,
                (b, a) -> b.asIntBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asIntBuffer().get(a.array, a.from, a.count)));
        kryo.addDefaultSerializer(double[].class, new Bulk<>(Double.BYTES, a -> a.length, double[]::new,
                (b, a) -> b.asDoubleBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asDoubleBuffer().get(a.array, a.from, a.count)));
        kryo.addDefaultSerializer(float[].class, new Bulk<>(Float.BYTES, a -> a.length, float[]::new,
                (b, a) -> b.asFloatBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asFloatBuffer().get(a.array, a.from, a.count)));
        kryo.addDefaultSerializer(short[].class, new Bulk<>(Short.BYTES, a -> a.length, short[]::new,
                (b, a) -> b.asShortBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asShortBuffer().get(a.array, a.from, a.count)));
        kryo.addDefaultSerializer(char[].class, new Bulk<>(Character.BYTES, a -> a.length, char[]::new,
                (b, a) -> b.asCharBuffer().put(a.array, a.from, a.count),
                (b, a) -> b.asCharBuffer().get(a.array, a.from, a.count)));
    }

    /** A slice of an array: {@code count} elements from {@code from}. */
    record Slice<A>(A array, int from, int count) {
    }

    /** One primitive array type: its element size, length, constructor and bulk copies to and from a buffer. */
    private static final class Bulk<A> extends Serializer<A> {
        private final int elementBytes;
        private final ToIntFunction<A> length;
        private final IntFunction<A> create;
        private final BiConsumer<ByteBuffer, Slice<A>> put;
        private final BiConsumer<ByteBuffer, Slice<A>> get;

        Bulk(int elementBytes, ToIntFunction<A> length, IntFunction<A> create, BiConsumer<ByteBuffer, Slice<A>> put,
             BiConsumer<ByteBuffer, Slice<A>> get) {
            super(true); // nulls allowed
            this.elementBytes = elementBytes;
            this.length = length;
            this.create = create;
            this.put = put;
            this.get = get;
        }

        @Override
        public void write(Kryo kryo, Output output, A array) {
            if (array == null) {
                output.writeVarInt(0, true);
                return;
            }
            int n = length.applyAsInt(array);
            output.writeVarInt(n + 1, true);
            byte[] scratch = new byte[(int) Math.min(CHUNK_BYTES, (long) n * elementBytes)];
            copy(n, scratch, (buffer, slice) -> {
                put.accept(buffer, slice);
                output.writeBytes(scratch, 0, slice.count() * elementBytes);
            }, array);
        }

        @Override
        public A read(Kryo kryo, Input input, Class<? extends A> type) {
            int n = input.readVarInt(true) - 1;
            if (n < 0) {
                return null;
            }
            if ((long) n * elementBytes > input.limit() - input.position() && input.getInputStream() == null) {
                throw new KryoException("an array of " + n + " elements is longer than the bytes left");
            }
            A array = create.apply(n);
            byte[] scratch = new byte[(int) Math.min(CHUNK_BYTES, (long) n * elementBytes)];
            copy(n, scratch, (buffer, slice) -> {
                input.readBytes(scratch, 0, slice.count() * elementBytes);
                get.accept(buffer, slice);
            }, array);
            return array;
        }

        /** Calls {@code step} per chunk of {@code array} with a little-endian view of {@code scratch}. */
        private void copy(int n, byte[] scratch, BiConsumer<ByteBuffer, Slice<A>> step, A array) {
            ByteBuffer buffer = ByteBuffer.wrap(scratch).order(ByteOrder.LITTLE_ENDIAN);
            int perChunk = Math.max(1, scratch.length / elementBytes);
            for (int from = 0; from < n; from += perChunk) {
                step.accept(buffer, new Slice<>(array, from, Math.min(perChunk, n - from)));
            }
        }
    }
}
