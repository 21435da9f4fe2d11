package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The pool of Kryo instances: an object given back is used again, and never by two threads at once. */
class SharedPoolTest {
    @Test
    void anObjectGivenBackIsUsedAgain() {
        AtomicInteger made = new AtomicInteger();
        SharedPool<Object> pool = new SharedPool<>(() -> {
            made.incrementAndGet();
            return new Object();
        });
        Object first = pool.obtain();
        Object second = pool.obtain();
        assertEquals(2, made.get(), "two in use at once: two made");
        pool.free(first);
        pool.free(second);
        List<Object> again = List.of(pool.obtain(), pool.obtain());
        assertTrue(again.contains(first) && again.contains(second), "both came back");
        assertEquals(2, made.get(), "none made anew");
        pool.free(first);
        assertSame(first, pool.obtain());
    }

    @Test
    void noObjectIsInTwoHandsAtOnce() throws Exception {
        SharedPool<AtomicBoolean> pool = new SharedPool<>(AtomicBoolean::new);
        AtomicInteger clashes = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 200_000; i++) {
                    AtomicBoolean inUse = pool.obtain();
                    if (!inUse.compareAndSet(false, true)) {
                        clashes.incrementAndGet();
                    }
                    inUse.set(false);
                    pool.free(inUse);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(0, clashes.get(), "an object obtained while another thread held it");
    }
}
