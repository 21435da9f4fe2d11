package org.cx.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buffers large values are held in ({@link ValueStore}) and arrive in ({@link MessageDecoder}): native memory
 * of one chunk's size, used again once released. A value's chunks live as long as the value, hundreds of MiB at a
 * time; Netty's allocators gave the memory of such buffers back as they emptied and zeroed new memory, which made
 * the merge sort slower than with heap arrays (decision 0028). Here a released buffer waits for the next chunk, up
 * to the process's {@linkplain ValueStore#memoryBudget() memory budget for values} of them; beyond that the garbage
 * collector frees it. Thread-safe.
 */
final class ChunkPool {
    /** Reports a chunk collected without its last release, as Netty does for its own buffers (sampled). */
    private static final ResourceLeakDetector<ByteBuf> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class);
    private static final boolean UNSAFE = io.netty.util.internal.PlatformDependent.hasUnsafe();
    /** The process's pool, of {@link ValueStore#CHUNK_BYTES} buffers. */
    static final ChunkPool SHARED = new ChunkPool(ValueStore.CHUNK_BYTES,
            (int) Math.min(Integer.MAX_VALUE, ValueStore.memoryBudget() / ValueStore.CHUNK_BYTES));

    private final int size;
    private final int maxFree;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freeCount = new AtomicInteger();

    ChunkPool(int size, int maxFree) {
        this.size = size;
        this.maxFree = maxFree;
    }

    /**
     * An empty buffer of {@code capacity} bytes in native memory; a pooled one if it fits one (and the JVM lets Netty
     * reach native memory directly, as Kryo needs anyway).
     */
    ByteBuf take(int capacity) {
        if (capacity > size || !UNSAFE) {
            return ByteBufAllocator.DEFAULT.directBuffer(capacity, capacity);
        }
        ByteBuffer b = free.poll();
        if (b == null) {
            b = ByteBuffer.allocateDirect(size);
        } else {
            freeCount.decrementAndGet();
        }
        return new Chunk(b.clear()).clear();
    }

    /** Buffers waiting to be used again. */
    int free() {
        return freeCount.get();
    }

    private void give(ByteBuffer b) {
        if (freeCount.incrementAndGet() <= maxFree) {
            free.add(b);
        } else {
            freeCount.decrementAndGet();
        }
    }

    /** A buffer over pooled memory, which goes back to the pool with its last reference. */
    private final class Chunk extends UnpooledUnsafeDirectByteBuf {
        private final ByteBuffer memory;
        private final ResourceLeakTracker<ByteBuf> leak;

        Chunk(ByteBuffer memory) {
            super(UnpooledByteBufAllocator.DEFAULT, memory, memory.capacity()); // never freed by the buffer itself
            this.memory = memory;
            this.leak = LEAKS.track(this);
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            if (leak != null) {
                leak.close(this);
            }
            give(memory);
        }
    }
}
