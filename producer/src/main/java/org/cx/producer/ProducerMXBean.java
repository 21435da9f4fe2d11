package org.cx.producer;

/** A producer as the JMX console ({@code cx status}, jconsole) sees it: {@code org.cx:type=Producer,name=…}. */
public interface ProducerMXBean {
    String getName();

    /** {@code host:port} of the server it is attached to now (after fail-overs, the latest). */
    String getServer();

    int getWorkers();

    /** Ready tasks in the cache. */
    int getCachedTasks();

    /** Tasks waiting for their code bundle to arrive. */
    int getTasksAwaitingCode();

    long getTasksRun();

    long getTasksFailed();

    /** Share of worker time spent waiting for a task since the producer started, 0..1. */
    double getIdleFraction();

    long getFailovers();

    long getBundlesFetched();

    /** Where task code runs: {@code SANDBOX}, {@code PROCESS} or {@code IN_PROCESS}. */
    String getTaskIsolation();

    /** Worker processes replaced because task code ended them, or was stopped (CPU limit, computation ended). */
    long getWorkerRestarts();
}
