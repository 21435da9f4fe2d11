package org.cx.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.cx.wire.Message;
import org.cx.wire.ValueRef;

/**
 * The large values a producer let go since its worker process last heard ({@link org.cx.wire.ValueStore#onRelease},
 * on the producer's event loop), to tell the process with its next task (on the worker's thread). At most
 * {@value #KEPT}: one left out stays in the process until its computation ends.
 */
final class PendingReleases implements Consumer<ValueRef> {
    static final int KEPT = 4096;
    private final Queue<ValueRef> released = new ConcurrentLinkedQueue<>();

    @Override
    public void accept(ValueRef ref) {
        if (released.size() < KEPT) {
            released.add(ref);
        }
    }

    /** What was let go since the last call, as one message; null if nothing. */
    Message.ValuesReleased drain() {
        List<byte[]> refs = new ArrayList<>();
        for (ValueRef ref; (ref = released.poll()) != null; ) {
            refs.add(ref.bytes());
        }
        return refs.isEmpty() ? null : new Message.ValuesReleased(refs.toArray(byte[][]::new));
    }
}
