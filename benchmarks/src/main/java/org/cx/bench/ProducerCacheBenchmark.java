package org.cx.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.producer.TaskCache;
import org.cx.wire.ReadyTask;
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

/** A producer cache hit: a worker takes a cached task (and one arrives, as on a prefetch), no waiting. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProducerCacheBenchmark {
    private TaskCache cache;

    @Setup
    public void prepare() {
        cache = new TaskCache(() -> { });
        TaskId root = TaskId.root(1);
        for (int i = 0; i < 16; i++) {
            cache.add(List.of(new ReadyTask(new TaskEnvelope(root.child(i), Continuation.CONSUMER, 0, i % 3, false,
                    new byte[0]), new byte[0][])));
        }
    }

    /** The best cached task leaves and comes back (ids are unique in a cache). */
    @Benchmark
    public ReadyTask hit() throws InterruptedException {
        ReadyTask t = cache.take();
        cache.add(List.of(t));
        return t;
    }
}
