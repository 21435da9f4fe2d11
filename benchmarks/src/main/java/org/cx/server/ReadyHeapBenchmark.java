package org.cx.server;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.TaskEnvelope;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The scheduler's ready heap holding {@code size} tasks of random priorities: one task leaves (the best, as on an
 * assignment) and one arrives, so the size stays put. O(log n) each.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReadyHeapBenchmark {
    @Param({"1000", "10000", "100000", "1000000"})
    int size;

    private ReadyHeap heap;
    private TaskEntry[] spare;
    private int next;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void fill() {
        heap = new ReadyHeap();
        TaskId root = TaskId.root(1);
        for (int i = 0; i < size; i++) {
            heap.add(entry(root.child(i % 2), i));
        }
        spare = new TaskEntry[1024];
        for (int i = 0; i < spare.length; i++) {
            spare[i] = entry(root.child(i % 2), size + i);
        }
    }

    private TaskEntry entry(TaskId id, long seq) {
        return new TaskEntry(new TaskEnvelope(id, Continuation.CONSUMER, 0, random.nextInt(64), false,
                new byte[0]), seq);
    }

    @Benchmark
    public TaskEntry pollAndAdd() {
        TaskEntry best = heap.peek();
        heap.remove(best);
        TaskEntry incoming = spare[next];
        spare[next] = best;
        next = (next + 1) & (spare.length - 1);
        heap.add(incoming);
        return best;
    }
}
