package org.cx.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The large values a store let go ({@link ValueStore#onRelease}, on whichever thread released them) that the
 * processes it serves have yet to hear of: a producer's worker process, with its next task; a server's producers, at
 * the end of its next burst. At most {@value #KEPT}: one left out stays there until its computation ends.
 */
public final class PendingReleases implements Consumer<ValueRef> {
    public static final int KEPT = 4096;
    private final Queue<ValueRef> released = new ConcurrentLinkedQueue<>();
    /** How many {@link #released} holds: the queue's own size walks it. */
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public void accept(ValueRef ref) {
        if (count.incrementAndGet() <= KEPT) {
            released.add(ref);
        } else {
            count.decrementAndGet();
        }
    }

    /** What was let go since the last call, as one message; null if nothing (at the cost of one read). */
    public Message.ValuesReleased drain() {
        if (count.get() == 0) {
            return null;
        }
        List<byte[]> refs = new ArrayList<>();
        for (ValueRef ref; (ref = released.poll()) != null; ) {
            count.decrementAndGet();
            refs.add(ref.bytes());
        }
        return refs.isEmpty() ? null : new Message.ValuesReleased(refs.toArray(byte[][]::new));
    }
}
