package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import java.util.function.Supplier;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Encodes application objects (task bodies, argument values, results) for one computation. Classes are written by
 * name and resolved only through the computation's {@link ComputationClassLoader}. Thread-safe: Kryo instances are
 * pooled.
 */
public final class BodyCodec {
    /** The buffer of a value's output: a value that outgrows it streams into the value store. */
    private static final int VALUE_BUFFER_BYTES = 1 << 15;

    private final ClassLoader classes;
    private final SharedPool<Kryo> kryos;
    private final SharedPool<Output> outputs;
    /** Outputs of the values tasks send. */
    private final SharedPool<PassThrough.Out> valueOutputs;
    /** Where values over the inline limit are kept and read, or null: every value inline. */
    private final ValueStore values;

    public BodyCodec(ComputationClassLoader classes) {
        this(classes, null);
    }

    /** @param values where large values are kept and read (null: every value travels inline) */
    public BodyCodec(ComputationClassLoader classes, ValueStore values) {
        this.classes = classes;
        this.values = values;
        this.kryos = new SharedPool<>(this::newKryo);
        this.outputs = new SharedPool<>(() -> new Output(256, -1));
        this.valueOutputs = new SharedPool<>(() -> new PassThrough.Out(VALUE_BUFFER_BYTES));
    }

    private Kryo newKryo() {
        Kryo kryo = new Kryo(new AllowListClassResolver(classes), new MapReferenceResolver());
        kryo.setRegistrationRequired(false);
        kryo.setClassLoader(classes);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        BulkArraySerializers.register(kryo);
        return kryo;
    }

    /** The loader application classes of this computation come from. */
    public ClassLoader classLoader() {
        return classes;
    }

    public byte[] encode(Object value) {
        return encode(value, "value");
    }

    /**
     * Encodes {@code value}, which is {@code what} (e.g. "task org.example.Leaf", for the message).
     *
     * @throws UnencodableException naming the class and field that cannot travel, and why
     */
    public byte[] encode(Object value, String what) {
        return encode(value, () -> what);
    }

    /** As {@link #encode(Object, String)}, saying what the value is only if it cannot be encoded. */
    public byte[] encode(Object value, Supplier<String> what) {
        Kryo kryo = kryos.obtain();
        long size = arrayBytes(value);
        Output output = size > 1 << 16 && size < Integer.MAX_VALUE - 64 ? new Output((int) size + 64, -1)
                : outputs.obtain(); // a large array: sized at once, not grown by copies
        try {
            output.reset();
            kryo.writeClassAndObject(output, value);
            return output.toBytes();
        } catch (KryoException e) {
            throw new UnencodableException("cannot encode " + what.get() + ": " + e.getMessage(), e);
        } finally {
            kryos.free(kryo);
            if (output.getBuffer().length <= 1 << 16) {
                outputs.free(output);
            }
        }
    }

    /**
     * Encodes a value that a task sends, of {@code computation}: as {@link #encode} if it is small, else into this
     * process's value store, returning a {@linkplain ValueRef reference} to it. A large value streams into the store
     * as it is encoded, its primitive arrays a chunk at a time, never whole into one buffer.
     */
    public byte[] encodeValue(Object value, long computation, Supplier<String> what) {
        if (values == null) {
            return encode(value, what);
        }
        Kryo kryo = kryos.obtain();
        PassThrough.Out output = valueOutputs.obtain();
        PassThrough.ToStore store = new PassThrough.ToStore(values, computation);
        output.setOutputStream(store);
        try (store) {
            kryo.writeClassAndObject(output, value);
            if (!store.started()) {
                return values.keep(computation, output.toBytes()); // it fit the buffer
            }
            output.flush();
            return store.spill().finish();
        } catch (KryoException e) {
            throw new UnencodableException("cannot encode " + what.get() + ": " + e.getMessage(), e);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot store " + what.get() + " in " + values.directory() + ": "
                    + e.getMessage(), e);
        } finally {
            output.setOutputStream(null);
            valueOutputs.free(output);
            kryos.free(kryo);
        }
    }

    /** The bytes of {@code value}'s elements if it is a primitive array, else 0. */
    private static long arrayBytes(Object value) {
        return switch (value) {
            case byte[] a -> a.length;
            case long[] a -> 8L * a.length;
            case double[] a -> 8L * a.length;
            case int[] a -> 4L * a.length;
            case float[] a -> 4L * a.length;
            case short[] a -> 2L * a.length;
            case char[] a -> 2L * a.length;
            case null, default -> 0;
        };
    }

    /**
     * Decodes bytes written by {@link #encode}.
     *
     * @throws UndecodableException naming the class that could not be resolved, or what else went wrong
     */
    public Object decode(byte[] bytes) {
        ValueRef ref = ValueRef.of(bytes);
        if (ref != null) {
            return decode(ref);
        }
        Kryo kryo = kryos.obtain();
        try {
            return kryo.readClassAndObject(new Input(bytes));
        } catch (KryoException e) {
            throw new UndecodableException(rootMessage(e), e);
        } finally {
            kryos.free(kryo);
        }
    }

    private Object decode(ValueRef ref) {
        if (values == null) {
            throw new UndecodableException(ref + " is held in a value store, and this process has none", null);
        }
        Kryo kryo = kryos.obtain();
        try (java.io.InputStream in = values.open(ref)) {
            return kryo.readClassAndObject(new PassThrough.In(in, 1 << 16));
        } catch (KryoException e) {
            throw new UndecodableException(rootMessage(e), e);
        } catch (java.io.IOException | IllegalStateException e) {
            throw new UndecodableException(e.getMessage(), e);
        } finally {
            kryos.free(kryo);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            if (t instanceof ClassNotFoundException) {
                return t.getMessage();
            }
        }
        return e.getMessage();
    }

    /** An application object that cannot travel; the message names its class and field and says why. */
    public static final class UnencodableException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnencodableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Application bytes that do not decode in this computation. */
    public static final class UndecodableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UndecodableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
