package org.cx.wire;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A large value by reference: it stays in the {@link ValueStore} of each process that holds it, and messages carry
 * these few bytes in its place, wherever an encoded value goes (a completion, a task's inputs, a mirror, a result).
 * A connection sends a value's bytes ahead of the first message that refers to it ({@link ValueLink}), so whoever
 * reads a reference holds the value.
 *
 * <p>Encoded as {@value #BYTES} bytes that no {@link BodyCodec} encoding starts with: a marker, then the fields.
 *
 * @param computation the computation the value belongs to; its values go when it ends
 * @param idHigh      with {@code idLow}, an id drawn at random by the process that made the value
 * @param size        the encoded value's bytes
 * @param crc         CRC32C of those bytes: checked when they arrive, and what validation compares
 */
public record ValueRef(long computation, long idHigh, long idLow, long size, int crc) {
    public static final int BYTES = 48;
    /** 0xFE starts a five-byte varint in Kryo: a class id no codec registers. */
    private static final long MARKER = 0xFE_43_58_52_45_46_01_00L;

    /** The reference as it travels in place of the value. */
    public byte[] bytes() {
        return ByteBuffer.allocate(BYTES).putLong(MARKER).putLong(computation).putLong(idHigh).putLong(idLow)
                .putLong(size).putInt(crc).putInt(0).array();
    }

    /** Whether {@code encoded} is a reference rather than a value. */
    public static boolean is(byte[] encoded) {
        return encoded != null && encoded.length == BYTES && encoded[0] == (byte) 0xFE
                && ByteBuffer.wrap(encoded).getLong() == MARKER;
    }

    /** The reference {@code encoded} holds, or null if it is a value. */
    public static ValueRef of(byte[] encoded) {
        if (!is(encoded)) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(encoded, 8, BYTES - 8);
        return new ValueRef(b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getInt());
    }

    /** The name of its file in a store. */
    String fileName() {
        return Long.toUnsignedString(computation, 16) + "-" + Long.toUnsignedString(idHigh, 16) + "-"
                + Long.toUnsignedString(idLow, 16);
    }

    /**
     * Whether two encoded values are the same value: equal bytes, or two references to the same {@link #content}
     * (a task run twice makes its large value twice, under two ids).
     */
    public static boolean sameValue(byte[] a, byte[] b) {
        ValueRef x = of(a);
        ValueRef y = of(b);
        return x != null && y != null ? x.content().equals(y.content()) && x.computation == y.computation
                : java.util.Arrays.equals(a, b);
    }

    /** What two runs of a deterministic task agree on: the bytes' size and checksum, not the id. */
    public String content() {
        return size + ":" + Integer.toHexString(crc);
    }

    @Override
    public String toString() {
        return "value " + fileName() + " (" + size + " bytes)";
    }

    /** Calls {@code each} for every reference among the encoded values {@code message} carries. */
    public static void forEachIn(Message message, Consumer<ValueRef> each) {
        switch (message) {
            case Message.Completed m -> {
                for (Completion c : m.completions()) {
                    for (ValueEnvelope v : c.values()) {
                        visit(v.value(), each);
                    }
                }
            }
            case Message.Assign m -> visit(m.tasks(), each);
            case Message.Inputs m -> {
                for (ValueEnvelope v : m.values()) {
                    visit(v.value(), each);
                }
            }
            case Message.Result m -> visit(m.value(), each);
            case Message.Routed m -> visit(m.payload(), each);
            case Message.Mirror m -> {
                for (MirrorOp op : m.ops()) {
                    forEachIn(op, each);
                }
            }
            default -> {
            }
        }
    }

    /** The references among {@code encoded} values (nulls skipped), in order; an empty list, not a new one, if none. */
    public static java.util.List<ValueRef> in(byte[][] encoded) {
        java.util.List<ValueRef> refs = java.util.List.of();
        for (byte[] value : encoded) {
            ValueRef ref = of(value);
            if (ref != null) {
                if (refs.isEmpty()) {
                    refs = new java.util.ArrayList<>(encoded.length);
                }
                refs.add(ref);
            }
        }
        return refs;
    }

    /** Calls {@code each} for every reference among the encoded values change {@code op} carries. */
    public static void forEachIn(MirrorOp op, Consumer<ValueRef> each) {
        switch (op) {
            case MirrorOp.Put p -> visit(p.inputs(), each);
            case MirrorOp.Input i -> visit(i.value(), each);
            case MirrorOp.Finished f -> visit(f.result(), each);
            case MirrorOp.Send s -> visit(s.payload(), each);
            default -> {
            }
        }
    }

    /** Calls {@code each} for every reference among the encoded values {@code payload} carries. */
    public static void forEachIn(RoutedPayload payload, Consumer<ValueRef> each) {
        visit(payload, each);
    }

    private static void visit(RoutedPayload payload, Consumer<ValueRef> each) {
        switch (payload) {
            case RoutedPayload.Transfer t -> visit(t.tasks(), each);
            case RoutedPayload.Value v -> visit(v.value().value(), each);
            default -> {
            }
        }
    }

    private static void visit(ReadyTask[] tasks, Consumer<ValueRef> each) {
        for (ReadyTask t : tasks) {
            visit(t.inputs(), each);
        }
    }

    private static void visit(byte[][] values, Consumer<ValueRef> each) {
        if (values != null) {
            for (byte[] v : values) {
                visit(v, each);
            }
        }
    }

    private static void visit(byte[] value, Consumer<ValueRef> each) {
        ValueRef ref = of(value);
        if (ref != null) {
            each.accept(ref);
        }
    }
}
