package org.cx.wire;

import static org.cx.wire.WireFields.readByteArrays;
import static org.cx.wire.WireFields.readBytes;
import static org.cx.wire.WireFields.readChunk;
import static org.cx.wire.WireFields.readContinuation;
import static org.cx.wire.WireFields.readEnvelope;
import static org.cx.wire.WireFields.readEnvelopes;
import static org.cx.wire.WireFields.readHash;
import static org.cx.wire.WireFields.readLength;
import static org.cx.wire.WireFields.readQuorum;
import static org.cx.wire.WireFields.readRole;
import static org.cx.wire.WireFields.readSources;
import static org.cx.wire.WireFields.readStrings;
import static org.cx.wire.WireFields.readTaskId;
import static org.cx.wire.WireFields.readTaskIds;
import static org.cx.wire.WireFields.readTimeout;
import static org.cx.wire.WireFields.readValueChunk;
import static org.cx.wire.WireFields.readValues;
import static org.cx.wire.WireFields.writeByteArrays;
import static org.cx.wire.WireFields.writeBytes;
import static org.cx.wire.WireFields.writeContinuation;
import static org.cx.wire.WireFields.writeEnvelope;
import static org.cx.wire.WireFields.writeEnvelopes;
import static org.cx.wire.WireFields.writeStrings;
import static org.cx.wire.WireFields.writeTaskId;
import static org.cx.wire.WireFields.writeTaskIds;
import static org.cx.wire.WireFields.writeValues;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.cx.api.TaskId;

/**
 * Kryo set up for the protocol: registration required, every message class registered under a fixed id with a
 * hand-written serializer, so a frame can only ever produce these classes and the encoding is compact and fast.
 * A Kryo instance is not thread-safe: use one per thread ({@link #newKryo()}).
 */
public final class ProtocolCodec {

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
                writeByteArrays(out, t.inputs());
            }
        }, in -> {
            ReadyTask[] tasks = new ReadyTask[readLength(in)];
            for (int i = 0; i < tasks.length; i++) {
                tasks[i] = new ReadyTask(readEnvelope(in), readByteArrays(in));
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
                out.writeVarInt(c.cachedHere() + 1, true);
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
                int cachedHere = in.readVarInt(true) - 1;
                try {
                    completions[i] = new Completion(taskId, spawned, values, execNanos, cpuNanos, claimed, claimedValue,
                            keeps, cachedHere);
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
        register(kryo, TaskId.class, id++, WireFields::writeTaskId, WireFields::readTaskId);
        register(kryo, TaskEnvelope.class, id++, WireFields::writeEnvelope, WireFields::readEnvelope);
        register(kryo, ValueEnvelope.class, id++, (out, v) -> {
            writeContinuation(out, v.to());
            writeBytes(out, v.value());
        }, in -> new ValueEnvelope(readContinuation(in), readBytes(in)));
        register(kryo, byte[].class, id++, WireFields::writeBytes, WireFields::readBytes);
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
            out.writeVarInt(c.length(), true);
            out.writeBytes(io.netty.buffer.ByteBufUtil.getBytes(c.data(), c.data().readerIndex(), c.length(), false));
        }, in -> readValueChunk(in));
        register(kryo, Message.GiveBack.class, id++, (out, m) -> writeTaskIds(out, m.ids()),
                in -> new Message.GiveBack(readTaskIds(in)));
        kryo.register(Usage.Kind.class, id++);
        kryo.register(Usage.class, id++);
        kryo.register(Usage[].class, new BoundedArraySerializer(Usage.class), id++);
        kryo.register(MirrorOp.UsageBatch.class, id++);
        kryo.register(MirrorOp.UsageAcked.class, id++);
        kryo.register(MirrorOp.UsageDelta.class, id++);
        register(kryo, Message.ValuesReleased.class, id++, (out, m) -> writeByteArrays(out, m.refs()), in -> {
            byte[][] refs = readByteArrays(in);
            for (byte[] ref : refs) {
                if (!ValueRef.is(ref)) {
                    throw new MalformedMessageException("ValuesReleased holds " + ref.length
                            + " bytes that are no value reference");
                }
            }
            return new Message.ValuesReleased(refs);
        });
        register(kryo, Message.ComputationStarted.class, id++, (out, m) -> out.writeLong(m.computation()),
                in -> new Message.ComputationStarted(in.readLong()));
        register(kryo, Message.ValueHeading.class, id++, (out, m) -> {
            writeBytes(out, m.ref());
            writeContinuation(out, m.to());
        }, in -> {
            byte[] ref = readBytes(in);
            if (!ValueRef.is(ref)) {
                throw new MalformedMessageException("ValueHeading holds " + ref.length + " bytes that are no value "
                        + "reference");
            }
            return new Message.ValueHeading(ref, readContinuation(in));
        });
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
}
