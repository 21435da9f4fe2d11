package org.cx.server;

import java.util.Arrays;

/**
 * The ready task heap (paper §4.1): an indexed binary heap, so insert, remove-any and re-key after a change of
 * holders are O(log n). Order: fewest holders first, then highest {@code priority}, then oldest.
 */
final class ReadyHeap {
    private TaskEntry[] heap = new TaskEntry[1024];
    private int size;
    private int fresh;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Entries with no holder: what diffusion may move to another server. */
    int freshCount() {
        return fresh;
    }

    private void countFresh(TaskEntry e, boolean inHeap) {
        boolean nowFresh = inHeap && e.holderCount() == 0;
        if (nowFresh != e.countedFresh) {
            fresh += nowFresh ? 1 : -1;
            e.countedFresh = nowFresh;
        }
    }

    TaskEntry peek() {
        return size == 0 ? null : heap[0];
    }

    void add(TaskEntry e) {
        if (e.heapIndex >= 0) {
            throw new IllegalStateException("already in the heap: " + e.envelope.id());
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = e;
        e.heapIndex = size;
        size++;
        siftUp(e.heapIndex);
        countFresh(e, true);
    }

    void remove(TaskEntry e) {
        int i = e.heapIndex;
        if (i < 0) {
            return;
        }
        countFresh(e, false);
        size--;
        TaskEntry last = heap[size];
        heap[size] = null;
        e.heapIndex = -1;
        if (i != size) {
            heap[i] = last;
            last.heapIndex = i;
            siftDown(i);
            siftUp(last.heapIndex);
        }
    }

    /** Restores order after {@code e}'s holder count changed. */
    void update(TaskEntry e) {
        if (e.heapIndex >= 0) {
            countFresh(e, true);
            siftDown(e.heapIndex);
            siftUp(e.heapIndex);
        }
    }

    static int compare(TaskEntry a, TaskEntry b) {
        int c = Integer.compare(a.holderCount(), b.holderCount());
        if (c != 0) {
            return c;
        }
        c = Long.compare(b.priority, a.priority);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    }

    private void siftUp(int i) {
        TaskEntry e = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            TaskEntry p = heap[parent];
            if (compare(e, p) >= 0) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = e;
        e.heapIndex = i;
    }

    private void siftDown(int i) {
        TaskEntry e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && compare(heap[right], heap[child]) < 0) {
                child = right;
            }
            if (compare(e, heap[child]) <= 0) {
                break;
            }
            heap[i] = heap[child];
            heap[i].heapIndex = i;
            i = child;
        }
        heap[i] = e;
        e.heapIndex = i;
    }
}
