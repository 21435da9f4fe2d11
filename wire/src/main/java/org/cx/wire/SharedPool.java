package org.cx.wire;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * Objects that are costly to make and used by one thread at a time (Kryo instances, their buffers), shared by every
 * thread without a lock: Kryo's thread-safe pool locks twice per use, which cost 4–5 % of a producer's and server's
 * time together at zero load. Idle objects wait in a few slots, each thread looking first in the one its id names, so
 * that threads that encode again and again seldom touch the same slot. An object given back when every slot is full
 * is dropped. Not thread-locals: those would keep a finished computation's class loader alive on every thread that
 * used its codec.
 */
final class SharedPool<T> {
    private static final int SLOTS = 16;

    private final AtomicReferenceArray<T> idle = new AtomicReferenceArray<>(SLOTS);
    private final Supplier<T> make;

    SharedPool(Supplier<T> make) {
        this.make = make;
    }

    /** An idle object, or a new one. */
    T obtain() {
        int first = home();
        for (int i = 0; i < SLOTS; i++) {
            int slot = (first + i) & (SLOTS - 1);
            if (idle.getPlain(slot) != null) {
                T t = idle.getAndSet(slot, null);
                if (t != null) {
                    return t;
                }
            }
        }
        return make.get();
    }

    /** Gives back {@code t}, which its user no longer touches. */
    void free(T t) {
        int first = home();
        for (int i = 0; i < SLOTS; i++) {
            int slot = (first + i) & (SLOTS - 1);
            if (idle.getPlain(slot) == null && idle.compareAndSet(slot, null, t)) {
                return;
            }
        }
    }

    private static int home() {
        return (int) Thread.currentThread().threadId() & (SLOTS - 1);
    }
}
