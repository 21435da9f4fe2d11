package org.cx.bench;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.Message;
import org.cx.wire.ProtocolCodec;
import org.cx.wire.ReadyTask;
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
 * Encoding and decoding the two batches on the hot path: an {@code Assign} of {@code batch} ready tasks (server to
 * producer) and a {@code Completed} of {@code batch} completions, each spawning two tasks and sending one value
 * (producer to server). Per batch; divide by the batch size for per-task figures.
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
    private byte[] assignBytes;
    private byte[] completedBytes;

    @Setup
    public void prepare() {
        kryo = ProtocolCodec.newKryo();
        output = new Output(1 << 16, -1);
        TaskId root = TaskId.root(7);
        ReadyTask[] tasks = new ReadyTask[batch];
        Completion[] completions = new Completion[batch];
        for (int i = 0; i < batch; i++) {
            TaskId id = root.child(i % 2).child(i % 2).child(i);
            tasks[i] = new ReadyTask(envelope(id, 0), new byte[0][]);
            completions[i] = new Completion(id, new TaskEnvelope[] {envelope(id.child(0), 0), envelope(id.child(1), 0)},
                    new ValueEnvelope[] {new ValueEnvelope(Continuation.to(root, 0), new byte[] {9, 8, 7, 6, 5, 4, 3, 2})},
                    1_000);
        }
        assign = new Message.Assign(tasks);
        completed = new Message.Completed(completions);
        assignBytes = encode(assign);
        completedBytes = encode(completed);
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
}
