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

    /**
     * What the owner's rules make the producer do: {@code RUNNING}, {@code CAPPED} (within a CPU cap) or
     * {@code PAUSED}; {@code RUNNING} if it has no rules.
     */
    String getState();

    /** Why, in words ("the owner is using this machine", "running within cpu 50%, memory 2G" …). */
    String getStateReason();

    /** The thermostat's CPU cap in force, as a share of the machine's processors, 0..1. */
    double getCpuCap();

    /** The thermostat's memory cap in force ({@code 2G}, {@code 50%}, {@code unlimited}). */
    String getMemoryCap();

    /** Workers that may take tasks now (fewer than all under a CPU cap, none while paused). */
    int getOpenWorkers();

    /** Tasks run since local midnight (since it started, for a producer without owner's rules). */
    long getTasksToday();

    /** CPU seconds used by task code since local midnight (0 for in-process workers). */
    double getCpuSecondsToday();

    /**
     * Drains the producer, as SIGTERM does: it takes no new task, gives its cached ones back to the server, lets
     * running ones finish (for up to 30 s) and sends their completions, then disconnects ({@code cx producer} then
     * exits). Only an admin login may invoke operations. Says what it started.
     */
    String drain();
}
