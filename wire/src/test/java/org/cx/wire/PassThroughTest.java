package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PassThroughTest {
    private static final int BUFFER = 1 << 10;

    private static Kryo kryo() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        BulkArraySerializers.register(kryo);
        return kryo;
    }

    /** Small fields around runs shorter than, as long as and longer than the buffer. */
    private static void write(Kryo kryo, Output out, byte[] bytes, long[] longs) {
        out.writeInt(7);
        kryo.writeObject(out, Arrays.copyOf(bytes, BUFFER - 1));
        kryo.writeObject(out, Arrays.copyOf(bytes, BUFFER));
        kryo.writeObject(out, bytes);
        out.writeString("between");
        kryo.writeObject(out, longs);
        out.writeInt(8);
        out.flush();
    }

    /** An input stream that hands out at most {@code most} bytes per read, as chunks arriving do. */
    private static InputStream trickle(byte[] data, int most) {
        return new FilterInputStream(new ByteArrayInputStream(data)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, most));
            }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, BUFFER, 3 * BUFFER + 5})
    void writesWhatKryoWritesAndReadsItBack(int readSize) {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        Random random = new Random(seed);
        byte[] bytes = new byte[5 * BUFFER + random.nextInt(BUFFER)];
        random.nextBytes(bytes);
        long[] longs = random.longs(3 * BUFFER + random.nextInt(BUFFER)).toArray();
        Kryo kryo = kryo();

        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        write(kryo, new Output(plain, BUFFER), bytes, longs);
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        Output out = new PassThrough.Out(passed, BUFFER);
        write(kryo, out, bytes, longs);
        assertArrayEquals(plain.toByteArray(), passed.toByteArray(), "the same bytes as Kryo's own output");
        assertEquals(passed.size(), out.total());

        Input in = new PassThrough.In(trickle(passed.toByteArray(), readSize), BUFFER);
        assertEquals(7, in.readInt());
        assertArrayEquals(Arrays.copyOf(bytes, BUFFER - 1), kryo.readObject(in, byte[].class));
        assertArrayEquals(Arrays.copyOf(bytes, BUFFER), kryo.readObject(in, byte[].class));
        assertArrayEquals(bytes, kryo.readObject(in, byte[].class));
        assertEquals("between", in.readString());
        assertArrayEquals(longs, kryo.readObject(in, long[].class));
        assertEquals(8, in.readInt());
        assertEquals(passed.size(), in.total());
    }

    @Test
    void aStreamThatEndsInsideALongRunSaysSo() {
        Kryo kryo = kryo();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        Output out = new PassThrough.Out(passed, BUFFER);
        kryo.writeObject(out, new byte[4 * BUFFER]);
        out.flush();
        byte[] cut = Arrays.copyOf(passed.toByteArray(), passed.size() - 10);
        KryoException e = assertThrows(KryoException.class,
                () -> kryo.readObject(new PassThrough.In(new ByteArrayInputStream(cut), BUFFER), byte[].class));
        assertTrue(e.getMessage().contains("10 bytes early"), e.getMessage());
    }
}
