package org.cx.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.cx.api.Continuation;
import org.cx.api.TaskId;

/**
 * Kryo set up for the protocol: registration required, every message class registered under a fixed id with a
 * hand-written serializer, so a frame can only ever produce these classes and the encoding is compact and fast.
 * A Kryo instance is not thread-safe: use one per thread ({@link #newKryo()}).
 */
public final class ProtocolCodec {

    /** Maximum elements in one array field; a larger count in a frame is refused as malformed. */
    static final int MAX_ARRAY_LENGTH = 1 << 20;
    /** Flags of a {@link TaskEnvelope}, one byte. */
    private static final int ON_SERVER = 1;
    private static final int FIRST_INPUT_WINS = 2;

    private ProtocolCodec() {
    }

    /** A Kryo that reads and writes exactly the protocol classes. */
    public static Kryo newKryo() {
        Kryo kryo = new Kryo(new IdsOnly(), null);
        kryo.setRegistrationRequired(true);
        kryo.setReferences(false);
        int id = 20;
        register(kryo, Message.Hello.class, id++, (out, m) -> {
            out.writeVarInt(m.version(), true);
            out.writeVarInt(m.role().ordinal(), true);
            out.writeString(m.name());
            out.writeVarInt(m.workers(), true);
            out.writeString(m.jmx());
        }, in -> new Message.Hello(in.readVarInt(true), readRole(in), in.readString(), in.readVarInt(true),
                in.readString()));
        register(kryo, Message.Welcome.class, id++, (out, m) -> {
            out.writeVarInt(m.version(), true);
            out.writeVarLong(m.peerId(), true);
            out.writeString(m.serverName());
            out.writeVarInt(m.serverId(), true);
            writeStrings(out, m.mirrors());
        }, in -> new Message.Welcome(in.readVarInt(true), in.readVarLong(true), in.readString(), in.readVarInt(true),
                readStrings(in)));
        register(kryo, Message.Refused.class, id++, (out, m) -> out.writeString(m.reason()),
                in -> new Message.Refused(in.readString()));
        register(kryo, Message.Submit.class, id++, (out, m) -> {
            out.writeVarLong(m.requestId(), true);
            writeEnvelope(out, m.root());
            out.writeString(m.bundle());
            out.writeVarInt(m.quorum(), true);
            out.writeVarInt(m.priority(), false);
            out.writeVarLong(m.timeoutMillis(), true);
        }, in -> new Message.Submit(in.readVarLong(true), readEnvelope(in), readSources(in), readQuorum(in),
                in.readVarInt(false), readTimeout(in)));
        register(kryo, Message.Accepted.class, id++, (out, m) -> {
            out.writeVarLong(m.requestId(), true);
            out.writeLong(m.computation());
        }, in -> new Message.Accepted(in.readVarLong(true), in.readLong()));
        register(kryo, Message.Collect.class, id++, (out, m) -> {
            out.writeLong(m.computation());
            out.writeBoolean(m.watch());
        }, in -> new Message.Collect(in.readLong(), in.readBoolean()));
        register(kryo, Message.Result.class, id++, (out, m) -> {
            out.writeLong(m.computation());
            writeBytes(out, m.value());
            out.writeVarLong(m.tasks(), true);
            out.writeVarLong(m.executions(), true);
            out.writeVarLong(m.t1Nanos(), true);
            out.writeVarLong(m.wallNanos(), true);
        }, in -> new Message.Result(in.readLong(), readBytes(in), in.readVarLong(true), in.readVarLong(true),
                in.readVarLong(true), in.readVarLong(true)));
        register(kryo, Message.Failed.class, id++, (out, m) -> {
            out.writeLong(m.computation());
            out.writeString(m.taskId());
            out.writeString(m.reason());
        }, in -> new Message.Failed(in.readLong(), in.readString(), in.readString()));
        register(kryo, Message.Collected.class, id++, (out, m) -> out.writeLong(m.computation()),
                in -> new Message.Collected(in.readLong()));
        register(kryo, Message.Request.class, id++, (out, m) -> {
            out.writeVarInt(m.credit(), true);
            out.writeVarInt(m.idleWorkers(), true);
            out.writeVarInt(m.openWorkers() + 1, true);
        }, in -> new Message.Request(in.readVarInt(true), in.readVarInt(true), in.readVarInt(true) - 1));
        register(kryo, Message.Assign.class, id++, (out, m) -> {
            out.writeVarInt(m.tasks().length, true);
            for (ReadyTask t : m.tasks()) {
                writeEnvelope(out, t.task());
                out.writeVarInt(t.inputs().length, true);
                for (byte[] input : t.inputs()) {
                    writeBytes(out, input);
                }
            }
        }, in -> {
            ReadyTask[] tasks = new ReadyTask[readLength(in)];
            for (int i = 0; i < tasks.length; i++) {
                TaskEnvelope envelope = readEnvelope(in);
                byte[][] inputs = new byte[readLength(in)][];
                for (int j = 0; j < inputs.length; j++) {
                    inputs[j] = readBytes(in);
                }
                tasks[i] = new ReadyTask(envelope, inputs);
            }
            return new Message.Assign(tasks);
        });
        register(kryo, Message.Completed.class, id++, (out, m) -> {
            out.writeVarInt(m.completions().length, true);
            for (Completion c : m.completions()) {
                writeTaskId(out, c.id());
                writeEnvelopes(out, c.spawned());
                writeValues(out, c.values());
                out.writeVarLong(c.execNanos(), true);
                out.writeVarLong(c.cpuNanos(), true);
                out.writeVarInt(c.claimed() + 1, true);
                out.writeVarInt(c.claimedValue() + 1, true);
                out.writeBoolean(c.keeps());
            }
        }, in -> {
            Completion[] completions = new Completion[readLength(in)];
            for (int i = 0; i < completions.length; i++) {
                TaskId taskId = readTaskId(in);
                TaskEnvelope[] spawned = readEnvelopes(in);
                ValueEnvelope[] values = readValues(in);
                long execNanos = in.readVarLong(true);
                long cpuNanos = in.readVarLong(true);
                int claimed = in.readVarInt(true) - 1;
                int claimedValue = in.readVarInt(true) - 1;
                boolean keeps = in.readBoolean();
                try {
                    completions[i] = new Completion(taskId, spawned, values, execNanos, cpuNanos, claimed, claimedValue,
                            keeps);
                } catch (IllegalArgumentException e) {
                    throw new MalformedMessageException("completion of " + taskId + ": " + e.getMessage());
                }
            }
            return new Message.Completed(completions);
        });
        register(kryo, Message.TaskFailed.class, id++, (out, m) -> {
            writeTaskId(out, m.id());
            out.writeString(m.reason());
        }, in -> new Message.TaskFailed(readTaskId(in), in.readString()));
        register(kryo, Message.Drop.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.Drop(readTaskIds(in)));
        register(kryo, Message.Revoke.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.Revoke(readTaskIds(in)));
        register(kryo, Message.Released.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.Released(readTaskIds(in)));
        register(kryo, Message.ComputationEnded.class, id++, (out, m) -> out.writeLong(m.computation()),
                in -> new Message.ComputationEnded(in.readLong()));
        register(kryo, Message.Mirrors.class, id++, (out, m) -> writeStrings(out, m.addresses()),
                in -> new Message.Mirrors(readStrings(in)));
        register(kryo, Message.NeedBundle.class, id++, (out, m) -> {
            out.writeVarLong(m.requestId(), true);
            out.writeString(m.bundle());
        }, in -> new Message.NeedBundle(in.readVarLong(true), readHash(in)));
        register(kryo, Message.SubmitRefused.class, id++, (out, m) -> {
            out.writeVarLong(m.requestId(), true);
            out.writeString(m.reason());
        }, in -> new Message.SubmitRefused(in.readVarLong(true), in.readString()));
        register(kryo, Message.BundleChunk.class, id++, (out, m) -> {
            out.writeString(m.bundle());
            out.writeVarInt(m.offset(), true);
            out.writeVarInt(m.total(), true);
            writeBytes(out, m.data());
            writeBytes(out, m.signer());
            writeBytes(out, m.signature());
        }, in -> readChunk(in));
        register(kryo, Message.FetchBundle.class, id++, (out, m) -> out.writeString(m.bundle()),
                in -> new Message.FetchBundle(readHash(in)));
        register(kryo, Message.NoBundle.class, id++, (out, m) -> {
            out.writeString(m.bundle());
            out.writeString(m.reason());
        }, in -> new Message.NoBundle(readHash(in), in.readString()));
        register(kryo, Message.Code.class, id++, (out, m) -> {
            out.writeLong(m.computation());
            out.writeString(m.bundle());
            out.writeString(m.owner());
            out.writeBoolean(m.validated());
            out.writeString(m.grant());
            writeBytes(out, m.grantSigner());
            writeBytes(out, m.grantSignature());
        }, in -> new Message.Code(in.readLong(), readSources(in), in.readString(), in.readBoolean(), in.readString(),
                readBytes(in), readBytes(in)));
        register(kryo, Message.Inputs.class, id++, (out, m) -> writeValues(out, m.values()),
                in -> new Message.Inputs(readValues(in)));
        register(kryo, Message.Keep.class, id++, (out, m) -> writeEnvelopes(out, m.tasks()),
                in -> new Message.Keep(readEnvelopes(in)));
        register(kryo, Message.Unkeep.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.Unkeep(readTaskIds(in)));
        registerPeerMessages(kryo, id);
        return kryo;
    }

    /**
     * The messages between task servers: records written field by field by Kryo's record serializer, over the
     * same hand-written serializers for ids, envelopes and values, with every array length bounded.
     */
    private static void registerPeerMessages(Kryo kryo, int firstId) {
        int id = firstId;
        register(kryo, TaskId.class, id++, ProtocolCodec::writeTaskId, ProtocolCodec::readTaskId);
        register(kryo, TaskEnvelope.class, id++, ProtocolCodec::writeEnvelope, ProtocolCodec::readEnvelope);
        register(kryo, ValueEnvelope.class, id++, (out, v) -> {
            writeContinuation(out, v.to());
            writeBytes(out, v.value());
        }, in -> new ValueEnvelope(readContinuation(in), readBytes(in)));
        register(kryo, byte[].class, id++, ProtocolCodec::writeBytes, ProtocolCodec::readBytes);
        register(kryo, int[].class, id++, (out, a) -> {
            out.writeVarInt(a.length, true);
            out.writeInts(a, 0, a.length, false);
        }, in -> in.readInts(readLength(in), false));
        register(kryo, long[].class, id++, (out, a) -> {
            out.writeVarInt(a.length, true);
            out.writeLongs(a, 0, a.length, false);
        }, in -> in.readLongs(readLength(in), false));
        Class<?>[] records = {
            ReadyTask.class, Message.Member.class, Message.ServerStatus.class,
            MirrorOp.Put.class, MirrorOp.Input.class, MirrorOp.Remove.class, MirrorOp.Started.class,
            MirrorOp.Finished.class, MirrorOp.Forget.class, MirrorOp.Send.class, MirrorOp.Acked.class,
            MirrorOp.Received.class, MirrorOp.Code.class, MirrorOp.Tally.class, MirrorOp.Reprioritized.class,
            RoutedPayload.Transfer.class, RoutedPayload.Value.class, RoutedPayload.Failure.class,
            RoutedPayload.Tally.class,
            Message.Join.class, Message.Redirect.class, Message.Topology.class, Message.Heartbeat.class,
            Message.HeartbeatAck.class, Message.Evicted.class, Message.Mirror.class, Message.MirrorAck.class,
            Message.MirrorRelease.class, Message.Load.class, Message.Routed.class, Message.RoutedAck.class,
            Message.NetworkQuery.class, Message.NetworkStatus.class, Message.StateLost.class,
            Message.RootQuery.class, Message.RootSeen.class,
        };
        for (Class<?> type : records) {
            kryo.register(type, id++);
        }
        Class<?>[] arrays = {
            byte[][].class, ReadyTask[].class, Message.Member[].class, Message.ServerStatus[].class, MirrorOp[].class,
        };
        for (Class<?> type : arrays) {
            kryo.register(type, new BoundedArraySerializer(type.getComponentType()), id++);
        }
        kryo.register(Message.WaitingTask.class, id++);
        kryo.register(Message.WaitingTask[].class, new BoundedArraySerializer(Message.WaitingTask.class), id++);
        kryo.register(Message.Diagnose.class, id++);
        kryo.register(Message.Diagnosis.class, id++);
        kryo.register(Message.Cancel.class, id++);
        kryo.register(Message.CancelAnswer.class, id++);
        kryo.register(Message.Prioritize.class, id++);
        kryo.register(Message.Prioritized.class, id++);
        kryo.register(Message.ListComputations.class, id++);
        kryo.register(Message.Diagnosis[].class, new BoundedArraySerializer(Message.Diagnosis.class), id++);
        kryo.register(Message.ComputationList.class, id++);
        register(kryo, Message.Fragment.class, id++, (out, f) -> {
            out.writeVarInt(f.total(), true);
            writeBytes(out, f.data());
        }, in -> new Message.Fragment(in.readVarInt(true), readBytes(in)));
        register(kryo, Message.ValueChunk.class, id++, (out, c) -> {
            writeBytes(out, c.ref());
            out.writeVarLong(c.offset(), true);
            writeBytes(out, c.data());
        }, in -> readValueChunk(in));
        register(kryo, Message.GiveBack.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.GiveBack(readTaskIds(in)));
        kryo.register(Usage.Kind.class, id++);
        kryo.register(Usage.class, id++);
        kryo.register(Usage[].class, new BoundedArraySerializer(Usage.class), id++);
        kryo.register(MirrorOp.UsageBatch.class, id++);
        kryo.register(MirrorOp.UsageAcked.class, id++);
        kryo.register(MirrorOp.UsageDelta.class, id++);
    }

    /** An array of objects (each may be null or a registered subtype), its length checked before allocation. */
    private static final class BoundedArraySerializer extends Serializer<Object[]> {
        private final Class<?> componentType;

        BoundedArraySerializer(Class<?> componentType) {
            super(false, true);
            this.componentType = componentType;
        }

        @Override
        public void write(Kryo kryo, Output output, Object[] array) {
            output.writeVarInt(array.length, true);
            for (Object element : array) {
                kryo.writeClassAndObject(output, element);
            }
        }

        @Override
        public Object[] read(Kryo kryo, Input input, Class<? extends Object[]> type) {
            Object[] array = (Object[]) java.lang.reflect.Array.newInstance(componentType, readLength(input));
            for (int i = 0; i < array.length; i++) {
                Object element = kryo.readClassAndObject(input);
                if (element != null && !componentType.isInstance(element)) {
                    throw new MalformedMessageException(element.getClass().getSimpleName() + " in an array of "
                            + componentType.getSimpleName());
                }
                array[i] = element;
            }
            return array;
        }
    }

    /** Kryo's class resolver, refusing a class named on the wire: the protocol knows its classes by id only. */
    private static final class IdsOnly extends com.esotericsoftware.kryo.util.DefaultClassResolver {
        @Override
        protected com.esotericsoftware.kryo.Registration readName(Input input) {
            throw new MalformedMessageException("a class named on the wire: protocol classes are known by id only");
        }
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

    private static <T> void register(Kryo kryo, Class<T> type, int id, BiConsumer<Output, T> writer,
                                     Function<Input, T> reader) {
        kryo.register(type, new Serializer<T>(false, true) {
            @Override
            public void write(Kryo k, Output output, T object) {
                writer.accept(output, object);
            }

            @Override
            public T read(Kryo k, Input input, Class<? extends T> t) {
                return reader.apply(input);
            }
        }, id);
    }

    private static Role readRole(Input in) {
        int ordinal = in.readVarInt(true);
        Role[] roles = Role.values();
        if (ordinal >= roles.length) {
            throw new MalformedMessageException("unknown role " + ordinal);
        }
        return roles[ordinal];
    }

    private static int readQuorum(Input in) {
        int quorum = in.readVarInt(true);
        if (quorum < 1 || quorum > Message.Submit.MAX_QUORUM) {
            throw new MalformedMessageException("a quorum must be in 1.." + Message.Submit.MAX_QUORUM + ", got "
                    + quorum);
        }
        return quorum;
    }

    private static long readTimeout(Input in) {
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

    private static Message.ValueChunk readValueChunk(Input in) {
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

    private static Message.BundleChunk readChunk(Input in) {
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
