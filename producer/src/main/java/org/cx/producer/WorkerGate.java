package org.cx.producer;

/**
 * Which of a producer's workers may take a task now: the first {@code open} of them (the thermostat's CPU cap may
 * leave fewer than all; a paused producer, none), and none once the producer is finishing. A worker outside the gate
 * finishes the task it runs and then waits here, not on the cache, so that the server is not told it is idle.
 */
final class WorkerGate {
    private final int workers;
    // Written under this object's lock; read without it on hot paths (a drain asks how many workers are open).
    private volatile int open;
    private volatile boolean finishing;
    /** Called when the gate narrows or closes: wakes the workers that wait on the cache, so they come here. */
    private final Runnable narrowed;
    /** Called when the number of open workers changes: the server is told what the producer offers. */
    private final Runnable changed;

    WorkerGate(int workers, Runnable narrowed, Runnable changed) {
        this.workers = workers;
        this.open = workers;
        this.narrowed = narrowed;
        this.changed = changed;
    }

    /** Lets the first {@code n} workers (0..workers) take tasks. */
    void open(int n) {
        int was;
        synchronized (this) {
            was = open;
            open = Math.max(0, Math.min(workers, n));
            notifyAll();
        }
        if (n < was) {
            narrowed.run();
        }
        if (n != was) {
            changed.run();
        }
    }

    /** No worker takes another task, ever. */
    void finish() {
        synchronized (this) {
            finishing = true;
            notifyAll();
        }
        narrowed.run();
    }

    int openWorkers() {
        return finishing ? 0 : open;
    }

    /** Whether {@code worker} may take a task now. */
    boolean mayRun(int worker) {
        return !finishing && worker < open;
    }

    /** Waits until {@code worker} may take a task; false if the producer is finishing. */
    synchronized boolean await(int worker) throws InterruptedException {
        while (!finishing && worker >= open) {
            wait();
        }
        return !finishing;
    }
}
