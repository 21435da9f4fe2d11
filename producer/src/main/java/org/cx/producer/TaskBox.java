package org.cx.producer;

import java.time.Duration;

/**
 * Where a producer runs task code, and within which limits.
 *
 * @param isolation  what separates task code from the producer and its host
 * @param heapMiB    the heap of each worker process; a task that needs more fails, saying so
 * @param cpuPerTask the CPU time one task may use; a task that uses more is stopped and fails, saying so
 */
public record TaskBox(Isolation isolation, int heapMiB, Duration cpuPerTask) {

    /** What separates task code from the producer and its host. */
    public enum Isolation {
        /** {@link #SANDBOX} where the machine has bubblewrap and allows it, else {@link #PROCESS} (with a warning). */
        AUTO,
        /**
         * Worker processes inside a bubblewrap sandbox: an unprivileged user in new namespaces, no network, and a
         * file system of only the JDK, the class path and the worker's scratch directory.
         */
        SANDBOX,
        /** Worker processes of the producer's user: their own heap and CPU limits, but the user's files and network. */
        PROCESS,
        /** In the producer's own JVM: no limits; only for code one trusts, such as one's own on one's own machine. */
        IN_PROCESS
    }

    public static final int DEFAULT_HEAP_MIB = 512;
    public static final Duration DEFAULT_CPU_PER_TASK = Duration.ofHours(1);

    public TaskBox {
        if (heapMiB < 16) {
            throw new IllegalArgumentException("a worker's heap must be at least 16 MiB, got " + heapMiB);
        }
        if (!cpuPerTask.isPositive()) {
            throw new IllegalArgumentException("the CPU time per task must be positive, got " + cpuPerTask);
        }
    }

    /** Worker processes, sandboxed where the machine allows it, with the default limits. */
    public static TaskBox defaults() {
        return new TaskBox(Isolation.AUTO, DEFAULT_HEAP_MIB, DEFAULT_CPU_PER_TASK);
    }

    /** Task code in the producer's JVM (one's own code on one's own machine; benchmarks of the exchange itself). */
    public static TaskBox inProcess() {
        return new TaskBox(Isolation.IN_PROCESS, DEFAULT_HEAP_MIB, DEFAULT_CPU_PER_TASK);
    }

    public TaskBox withIsolation(Isolation newIsolation) {
        return new TaskBox(newIsolation, heapMiB, cpuPerTask);
    }
}
