package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.wire.Completion;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.Usage;
import org.cx.wire.ValueEnvelope;
import org.junit.jupiter.api.Test;

class UsageMeterTest {
    private static final long SECOND = 1_000_000_000L;

    private static Completion leaf(long computation, int n, long wall, long cpu) {
        return new Completion(TaskId.root(computation).child(n), new TaskEnvelope[0],
                new ValueEnvelope[] {new ValueEnvelope(Continuation.CONSUMER, new byte[10])}, wall, cpu);
    }

    @Test
    void executionsAddUpPerIntervalKindComputationAndProducer() {
        AtomicLong wall = new AtomicLong(Usage.INTERVAL_MILLIS * 1000);
        UsageMeter meter = new UsageMeter(wall::get);
        ComputationState c = new ComputationState(7, 0, null);
        c.owner = "alice";
        ProducerState p = new ProducerState(1, "p1", "bob", 2);
        ProducerState q = new ProducerState(2, "p2", "dave", 4);
        meter.joined(p, 0);
        meter.joined(q, 0);
        meter.executed(c, p, leaf(7, 0, 100, 90), 50, true, 0);
        meter.executed(c, p, leaf(7, 1, 100, 80), 50, true, 0);
        meter.executed(c, q, leaf(7, 1, 300, 250), 0, false, 0);
        meter.executed(null, q, leaf(9, 0, 5, 5), 0, false, 0);
        wall.addAndGet(Usage.INTERVAL_MILLIS); // the next interval
        meter.executed(c, p, leaf(7, 2, 100, 70), 50, true, 0);
        List<Usage> rows = meter.drain(SECOND);
        Map<String, Usage> by = rows.stream().collect(Collectors.toMap(
                u -> u.kind() + "/" + u.producer() + "/" + u.computation() + "/" + u.intervalStart(), u -> u));
        long first = Usage.INTERVAL_MILLIS * 1000;
        Usage a = by.get("ACCEPTED/p1/7/" + first);
        assertEquals(2, a.executions());
        assertEquals(170, a.cpuNanos());
        assertEquals(200, a.wallNanos());
        assertEquals(100, a.bytesIn());
        assertEquals(20, a.bytesOut());
        assertEquals(2, a.messages());
        assertEquals("alice", a.consumer());
        assertEquals("bob", a.contributor());
        assertEquals("c2", a.hostType());
        assertEquals(1, by.get("ACCEPTED/p1/7/" + (first + Usage.INTERVAL_MILLIS)).executions());
        assertEquals(250, by.get("DUPLICATE/p2/7/" + first).cpuNanos());
        assertEquals(UsageMeter.ANONYMOUS, by.get("DUPLICATE/p2/9/" + first).consumer(), "a computation over here");
        // Offered: workers × elapsed, less the wall time of what ran.
        assertEquals(2 * SECOND - 300, by.get("OFFERED/p1/0/" + (first + Usage.INTERVAL_MILLIS)).cpuNanos());
        assertEquals(4 * SECOND - 305, by.get("OFFERED/p2/0/" + (first + Usage.INTERVAL_MILLIS)).cpuNanos());
        assertEquals(6, rows.size());
        meter.left(q, 2 * SECOND);
        meter.opening(p, 2 * SECOND); // p's owner lets one worker of two run from then on
        p.openWorkers = 1;
        List<Usage> next = meter.drain(4 * SECOND);
        assertEquals(List.of(4 * SECOND, 2 * SECOND + 2 * SECOND), next.stream().map(Usage::cpuNanos).toList(),
                "q offered its 4 workers until it left; p 2 workers for a second, then 1 for two");
    }
}
