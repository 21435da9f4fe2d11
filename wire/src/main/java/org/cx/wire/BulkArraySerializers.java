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
            if (output instanceof PassThrough.Out out) {
                ValueStore.Spill spill = out.spillFor((long) n * elementBytes);
                if (spill != null) {
                    intoChunks(spill, array, n);
                    out.passed((long) n * elementBytes);
                    return;
                }
            }
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
            long bytes = (long) n * elementBytes;
            ByteBuffer[] runs = input instanceof PassThrough.In in && bytes <= Integer.MAX_VALUE
                    ? in.runs((int) bytes) : null;
            if (runs != null) {
                fromRuns(runs, array, n);
                return array;
            }
            byte[] scratch = new byte[(int) Math.min(CHUNK_BYTES, (long) n * elementBytes)];
            copy(n, scratch, (buffer, slice) -> {
                input.readBytes(scratch, 0, slice.count() * elementBytes);
                get.accept(buffer, slice);
            }, array);
            return array;
        }

        /**
         * Puts {@code array}'s {@code n} elements straight into the chunks of the value being encoded: one copy, where
         * a scratch array took two. An element that does not fit the rest of a chunk goes through a small array.
         */
        private void intoChunks(ValueStore.Spill spill, A array, int n) {
            try {
                for (int at = 0; at < n; ) {
                    ByteBuffer room = spill.room();
                    int count = Math.min(n - at, room.remaining() / elementBytes);
                    if (count == 0) {
                        byte[] one = new byte[elementBytes];
                        put.accept(ByteBuffer.wrap(one).order(ByteOrder.LITTLE_ENDIAN), new Slice<>(array, at, 1));
                        spill.write(one, 0, elementBytes);
                        at++;
                        continue;
                    }
                    put.accept(room, new Slice<>(array, at, count));
                    spill.filled(count * elementBytes);
                    at += count;
                }
            } catch (java.io.IOException e) {
                throw new KryoException(e);
            }
        }

        /**
         * Fills {@code array}'s {@code n} elements from {@code runs}, the bytes in order, one copy each; an element
         * split between two runs is joined in a small array.
         */
        private void fromRuns(ByteBuffer[] runs, A array, int n) {
            byte[] one = new byte[elementBytes];
            int partial = 0;
            int at = 0;
            for (ByteBuffer run : runs) {
                if (partial > 0) {
                    int take = Math.min(elementBytes - partial, run.remaining());
                    run.get(one, partial, take);
                    partial += take;
                    if (partial < elementBytes) {
                        continue;
                    }
                    get.accept(ByteBuffer.wrap(one).order(ByteOrder.LITTLE_ENDIAN), new Slice<>(array, at++, 1));
                    partial = 0;
                }
                int count = run.remaining() / elementBytes;
                if (count > 0) {
                    get.accept(run.slice(run.position(), count * elementBytes).order(ByteOrder.LITTLE_ENDIAN),
                            new Slice<>(array, at, count));
                    run.position(run.position() + count * elementBytes);
                    at += count;
                }
                partial = run.remaining();
                run.get(one, 0, partial);
            }
            if (at != n || partial != 0) {
                throw new KryoException("an array of " + n + " elements ends after " + at);
            }
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
