package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.testing.Seeds;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

class ReadyHeapTest {
    private long seq;

    private TaskEntry entry(long priority) {
        TaskEnvelope env = new TaskEnvelope(TaskId.root(1).child((int) seq), Continuation.CONSUMER, 0, priority,
                false, new byte[0]);
        return new TaskEntry(env, seq++);
    }

    @Test
    void ordersByHoldersThenPriorityThenAge() {
        ReadyHeap heap = new ReadyHeap();
        TaskEntry low = entry(1);
        TaskEntry high = entry(5);
        TaskEntry highLater = entry(5);
        TaskEntry held = entry(100);
        held.addHolder(new ProducerState(1, "p", 1));
        for (TaskEntry e : List.of(low, highLater, held, high)) {
            heap.add(e);
        }
        assertSame(high, heap.peek());
        heap.remove(high);
        assertSame(highLater, heap.peek());
        heap.remove(highLater);
        assertSame(low, heap.peek());
        heap.remove(low);
        assertSame(held, heap.peek(), "a held task comes after every fresh one, whatever its priority");
    }

    @Test
    void rekeyAfterHolderChangeAndRemoveAnywhere() {
        long seed = Seeds.seed("ReadyHeapTest.rekeyAfterHolderChangeAndRemoveAnywhere");
        SplittableRandom random = new SplittableRandom(seed);
        ReadyHeap heap = new ReadyHeap();
        List<TaskEntry> live = new ArrayList<>();
        ProducerState p = new ProducerState(1, "p", 1);
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(4);
            if (op == 0 || live.isEmpty()) {
                TaskEntry e = entry(random.nextInt(10));
                heap.add(e);
                live.add(e);
            } else if (op == 1) {
                TaskEntry e = live.remove(random.nextInt(live.size()));
                heap.remove(e);
                assertEquals(-1, e.heapIndex);
            } else if (op == 2) {
                TaskEntry e = live.get(random.nextInt(live.size()));
                if (e.heldBy(p)) {
                    e.removeHolder(p);
                } else {
                    e.addHolder(p);
                }
                heap.update(e);
            } else {
                TaskEntry best = live.stream().min(ReadyHeap::compare).orElseThrow();
                assertSame(best, heap.peek(), "seed " + seed + " step " + step);
            }
            assertEquals(live.size(), heap.size());
        }
    }
}
