package org.cx.bench;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.ProtocolCodec;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding and decoding the batches on the hot path: an {@code Assign} of {@code batch} ready tasks (server to
 * producer), a {@code Completed} of {@code batch} completions, each spawning two tasks and sending one value
 * (producer to server), and between servers a {@code Mirror} of a task's typical changes ({@code batch} times a
 * task stored, an input arriving and a task leaving) and a {@code Routed} transfer of {@code batch} ready tasks.
 * Per batch; divide by the batch size for per-task figures.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
    @Param({"1", "64"})
    int batch;

    private Kryo kryo;
    private Output output;
    private Message.Assign assign;
    private Message.Completed completed;
    private Message.Mirror mirror;
    private Message.Routed routed;
    private byte[] assignBytes;
    private byte[] completedBytes;
    private byte[] mirrorBytes;
    private byte[] routedBytes;

    @Setup
    public void prepare() {
        kryo = ProtocolCodec.newKryo();
        output = new Output(1 << 16, -1);
        TaskId root = TaskId.root(7);
        ReadyTask[] tasks = new ReadyTask[batch];
        Completion[] completions = new Completion[batch];
        MirrorOp[] ops = new MirrorOp[3 * batch];
        int[] homes = new int[batch];
        for (int i = 0; i < batch; i++) {
            TaskId id = root.child(i % 2).child(i % 2).child(i);
            tasks[i] = new ReadyTask(envelope(id, 0), new byte[0][]);
            completions[i] = new Completion(id, new TaskEnvelope[] {envelope(id.child(0), 0), envelope(id.child(1), 0)},
                    new ValueEnvelope[] {new ValueEnvelope(Continuation.to(root, 0), new byte[] {9, 8, 7, 6, 5, 4, 3, 2})},
                    1_000);
            TaskId sum = id.child(2);
            ops[3 * i] = new MirrorOp.Put(envelope(sum, 2), 3, 1, new byte[][] {null, new byte[8]});
            ops[3 * i + 1] = new MirrorOp.Input(sum, 0, new byte[8]);
            ops[3 * i + 2] = new MirrorOp.Remove(id);
            homes[i] = 3;
        }
        assign = new Message.Assign(tasks);
        completed = new Message.Completed(completions);
        mirror = new Message.Mirror(3, 1_234, false, false, ops);
        routed = new Message.Routed(3, 5, 77, new RoutedPayload.Transfer(7, 1, "", "", 0, tasks, homes,
                new RoutedPayload.Tally(12, 13, 40_000_000)));
        assignBytes = encode(assign);
        completedBytes = encode(completed);
        mirrorBytes = encode(mirror);
        routedBytes = encode(routed);
    }

    private static TaskEnvelope envelope(TaskId id, int arity) {
        return new TaskEnvelope(id, Continuation.CONSUMER, arity, 10, false, new byte[24]);
    }

    private byte[] encode(Message m) {
        output.reset();
        kryo.writeClassAndObject(output, m);
        return output.toBytes();
    }

    @Benchmark
    public byte[] encodeAssign() {
        return encode(assign);
    }

    @Benchmark
    public Object decodeAssign() {
        return kryo.readClassAndObject(new Input(assignBytes));
    }

    @Benchmark
    public byte[] encodeCompleted() {
        return encode(completed);
    }

    @Benchmark
    public Object decodeCompleted() {
        return kryo.readClassAndObject(new Input(completedBytes));
    }

    @Benchmark
    public byte[] encodeMirror() {
        return encode(mirror);
    }

    @Benchmark
    public Object decodeMirror() {
        return kryo.readClassAndObject(new Input(mirrorBytes));
    }

    @Benchmark
    public byte[] encodeRouted() {
        return encode(routed);
    }

    @Benchmark
    public Object decodeRouted() {
        return kryo.readClassAndObject(new Input(routedBytes));
    }
}
