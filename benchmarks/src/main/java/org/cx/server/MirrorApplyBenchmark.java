package org.cx.server;

import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.MirrorOp;
import org.cx.wire.TaskEnvelope;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A mirror applying one batch as Fibonacci produces them: per completed decomposition, the task leaves and a sum
 * and two children arrive (a Put of each), and an input reaches a waiting sum. 16 completions per batch; the copy
 * stays the same size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MirrorApplyBenchmark {
    private static final int COMPLETIONS = 16;

    private Replica replica;
    private MirrorOp[] add;
    private MirrorOp[] undo;
    private long seq;

    @Setup
    public void prepare() {
        replica = new Replica();
        replica.offer(++seq, true, new MirrorOp[] {new MirrorOp.Started(1, 0, "", 1, 0, 0)});
        TaskId root = TaskId.root(1);
        add = new MirrorOp[COMPLETIONS * 4];
        undo = new MirrorOp[COMPLETIONS * 3];
        for (int i = 0; i < COMPLETIONS; i++) {
            TaskId parent = root.child(i);
            TaskId sum = parent.child(0);
            add[4 * i] = new MirrorOp.Put(envelope(sum, 2), 1, 1, new byte[2][]);
            add[4 * i + 1] = new MirrorOp.Put(envelope(sum.child(0), 0), 1, 1, new byte[0][]);
            add[4 * i + 2] = new MirrorOp.Put(envelope(sum.child(1), 0), 1, 1, new byte[0][]);
            add[4 * i + 3] = new MirrorOp.Input(sum, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            undo[3 * i] = new MirrorOp.Remove(sum);
            undo[3 * i + 1] = new MirrorOp.Remove(sum.child(0));
            undo[3 * i + 2] = new MirrorOp.Remove(sum.child(1));
        }
    }

    private static TaskEnvelope envelope(TaskId id, int arity) {
        return new TaskEnvelope(id, Continuation.CONSUMER, arity, 10, false, new byte[24]);
    }

    /** One batch in, then the batch that removes it (two applies per op). */
    @Benchmark
    public Replica applyBatch() {
        replica.offer(++seq, false, add);
        replica.offer(++seq, false, undo);
        return replica;
    }
}
