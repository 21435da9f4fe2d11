package org.cx.wire;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * Objects that are costly to make and used by one thread at a time (Kryo instances, their buffers). Each platform
 * thread keeps the one it used last, so a thread that encodes again and again touches nothing another thread does;
 * the rest wait in a queue for any thread (a virtual thread, or a second use on a thread whose own object is in use).
 * Kryo's thread-safe pool locks twice per use, which cost 4–5 % of a producer's and server's time together at zero
 * load. It holds at most as many objects as were ever in use at once.
 */
final class SharedPool<T> {
    private final ThreadLocal<T> own = new ThreadLocal<>();
    private final ConcurrentLinkedQueue<T> idle = new ConcurrentLinkedQueue<>();
    private final Supplier<T> make;

    SharedPool(Supplier<T> make) {
        this.make = make;
    }

    /** An idle object, or a new one. */
    T obtain() {
        T t = own.get();
        if (t != null) {
            own.set(null);
            return t;
        }
        t = idle.poll();
        return t != null ? t : make.get();
    }

    /** Gives back {@code t}, which its user no longer touches. */
    void free(T t) {
        if (!Thread.currentThread().isVirtual() && own.get() == null) {
            own.set(t);
        } else {
            idle.offer(t);
        }
    }
}
