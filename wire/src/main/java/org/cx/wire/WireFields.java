package org.cx.wire;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.cx.api.Continuation;
import org.cx.api.TaskId;

/**
 * The protocol's fields as bytes: ids, envelopes, values, strings and byte arrays written compactly, and read back
 * with every length, range and flag checked before anything is allocated, so that a malformed frame is refused with
 * a {@link MalformedMessageException} that says what was wrong. {@link ProtocolCodec} builds its serializers from
 * these.
 */
final class WireFields {

    /** Maximum elements in one array field; a larger count in a frame is refused as malformed. */
    static final int MAX_ARRAY_LENGTH = 1 << 20;
    /** Flags of a {@link TaskEnvelope}, one byte. */
    private static final int ON_SERVER = 1;
    private static final int FIRST_INPUT_WINS = 2;

    private WireFields() {
    }

    static void writeStrings(Output out, String[] strings) {
        out.writeVarInt(strings.length, true);
        for (String s : strings) {
            out.writeString(s);
        }
    }

    static String[] readStrings(Input in) {
        String[] strings = new String[readLength(in)];
        for (int i = 0; i < strings.length; i++) {
            strings[i] = in.readString();
        }
        return strings;
    }

    static Role readRole(Input in) {
        int ordinal = in.readVarInt(true);
        Role[] roles = Role.values();
        if (ordinal >= roles.length) {
            throw new MalformedMessageException("unknown role " + ordinal);
        }
        return roles[ordinal];
    }

    static int readQuorum(Input in) {
        int quorum = in.readVarInt(true);
        if (quorum < 1 || quorum > Message.Submit.MAX_QUORUM) {
            throw new MalformedMessageException("a quorum must be in 1.." + Message.Submit.MAX_QUORUM + ", got "
                    + quorum);
        }
        return quorum;
    }

    static long readTimeout(Input in) {
        long millis = in.readVarLong(true);
        if (millis < 0) {
            throw new MalformedMessageException("a computation's timeout must be 0 (none) or positive, got " + millis);
        }
        return millis;
    }

    /** A computation's {@link Sources}: a code bundle's hash or none, and optionally a data bundle's. */
    static String readSources(Input in) {
        String sources = in.readString();
        if (sources == null || !Sources.valid(sources)) {
            throw new MalformedMessageException("a computation's sources must be a bundle hash (64 hex digits) or "
                    + "empty, optionally followed by '+' and a data bundle's hash");
        }
        return sources;
    }

    /** A bundle hash: 64 lowercase hex digits, or empty for the class path. */
    static String readHash(Input in) {
        String hash = in.readString();
        if (hash == null || !(hash.isEmpty() || hash.length() == 64 && hash.chars().allMatch(
                c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f'))) {
            throw new MalformedMessageException("a bundle hash must be 64 hex digits or empty");
        }
        return hash;
    }

    static Message.ValueChunk readValueChunk(Input in) {
        byte[] ref = readBytes(in);
        long offset = in.readVarLong(true);
        byte[] data = readBytes(in);
        checkValueChunk(ref, offset, data.length);
        return new Message.ValueChunk(ref, offset, data);
    }

    /** Refuses a value chunk whose reference is no reference or whose bytes do not fit its value. */
    static void checkValueChunk(byte[] refBytes, long offset, int length) {
        ValueRef ref = ValueRef.of(refBytes);
        if (ref == null) {
            throw new MalformedMessageException("a value chunk must name its value by a " + ValueRef.BYTES
                    + "-byte reference");
        }
        if (offset < 0 || length <= 0 || offset + length > ref.size()) {
            throw new MalformedMessageException("value chunk at " + offset + " of " + length
                    + " bytes does not fit " + ref);
        }
    }

    static Message.BundleChunk readChunk(Input in) {
        String hash = readHash(in);
        int offset = in.readVarInt(true);
        int total = in.readVarInt(true);
        byte[] data = readBytes(in);
        if (offset < 0 || total < 0 || (long) offset + data.length > total) {
            throw new MalformedMessageException("bundle chunk at " + offset + " of " + data.length
                    + " bytes does not fit a bundle of " + total + " bytes");
        }
        return new Message.BundleChunk(hash, offset, total, data, readBytes(in), readBytes(in));
    }

    static int readLength(Input in) {
        int n = in.readVarInt(true);
        if (n < 0 || n > MAX_ARRAY_LENGTH) {
            throw new MalformedMessageException("array length " + n + " out of range");
        }
        if (n > in.limit() - in.position()) { // every element takes a byte at least: checked before allocating
            throw new MalformedMessageException("an array of " + n + " elements exceeds the frame");
        }
        return n;
    }

    static void writeBytes(Output out, byte[] bytes) {
        out.writeVarInt(bytes.length, true);
        out.writeBytes(bytes);
    }

    static byte[] readBytes(Input in) {
        int n = in.readVarInt(true);
        if (n < 0 || n > in.limit() - in.position()) {
            throw new MalformedMessageException("byte array of " + n + " bytes exceeds the frame");
        }
        return in.readBytes(n);
    }

    /** An array of byte arrays, none null. */
    static void writeByteArrays(Output out, byte[][] arrays) {
        out.writeVarInt(arrays.length, true);
        for (byte[] bytes : arrays) {
            writeBytes(out, bytes);
        }
    }

    static byte[][] readByteArrays(Input in) {
        byte[][] arrays = new byte[readLength(in)][];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = readBytes(in);
        }
        return arrays;
    }

    static void writeTaskId(Output out, TaskId id) {
        out.writeLong(id.computation());
        out.writeVarInt(id.pathLength(), true);
        byte[] path = new byte[id.pathLength()];
        id.copyPath(path, 0);
        out.writeBytes(path);
    }

    static TaskId readTaskId(Input in) {
        long computation = in.readLong();
        try {
            return TaskId.fromPath(computation, readBytes(in));
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException(e.getMessage());
        }
    }

    static void writeTaskIds(Output out, TaskId[] ids) {
        out.writeVarInt(ids.length, true);
        for (TaskId t : ids) {
            writeTaskId(out, t);
        }
    }

    static TaskId[] readTaskIds(Input in) {
        TaskId[] ids = new TaskId[readLength(in)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = readTaskId(in);
        }
        return ids;
    }

    static void writeEnvelopes(Output out, TaskEnvelope[] envelopes) {
        out.writeVarInt(envelopes.length, true);
        for (TaskEnvelope e : envelopes) {
            writeEnvelope(out, e);
        }
    }

    static TaskEnvelope[] readEnvelopes(Input in) {
        TaskEnvelope[] envelopes = new TaskEnvelope[readLength(in)];
        for (int i = 0; i < envelopes.length; i++) {
            envelopes[i] = readEnvelope(in);
        }
        return envelopes;
    }

    static void writeValues(Output out, ValueEnvelope[] values) {
        out.writeVarInt(values.length, true);
        for (ValueEnvelope v : values) {
            writeContinuation(out, v.to());
            writeBytes(out, v.value());
        }
    }

    static ValueEnvelope[] readValues(Input in) {
        ValueEnvelope[] values = new ValueEnvelope[readLength(in)];
        for (int i = 0; i < values.length; i++) {
            values[i] = new ValueEnvelope(readContinuation(in), readBytes(in));
        }
        return values;
    }

    static void writeContinuation(Output out, Continuation k) {
        if (k.isConsumer()) {
            out.writeBoolean(false);
        } else {
            out.writeBoolean(true);
            writeTaskId(out, k.target());
            out.writeVarInt(k.argNo(), true);
        }
    }

    static Continuation readContinuation(Input in) {
        if (!in.readBoolean()) {
            return Continuation.CONSUMER;
        }
        return Continuation.to(readTaskId(in), in.readVarInt(true));
    }

    static void writeEnvelope(Output out, TaskEnvelope e) {
        writeTaskId(out, e.id());
        writeContinuation(out, e.continuation());
        out.writeVarInt(e.arity(), true);
        out.writeVarLong(e.priority(), false);
        out.writeByte((e.onServer() ? ON_SERVER : 0) | (e.firstInputWins() ? FIRST_INPUT_WINS : 0));
        writeBytes(out, e.body());
    }

    static TaskEnvelope readEnvelope(Input in) {
        TaskId id = readTaskId(in);
        Continuation k = readContinuation(in);
        int arity = readLength(in);
        long priority = in.readVarLong(false);
        int flags = in.readByte();
        if ((flags & ~(ON_SERVER | FIRST_INPUT_WINS)) != 0) {
            throw new MalformedMessageException("unknown task flags " + flags);
        }
        return new TaskEnvelope(id, k, arity, priority, (flags & ON_SERVER) != 0, (flags & FIRST_INPUT_WINS) != 0,
                readBytes(in));
    }
}
