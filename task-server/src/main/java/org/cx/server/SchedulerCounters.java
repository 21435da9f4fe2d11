package org.cx.server;

/** Monotonic counters of one scheduler, read by status views and tests. Written only by the scheduler thread. */
public final class SchedulerCounters {
    long computationsSubmitted;
    long computationsCompleted;
    long computationsFailed;
    /** Of those failed, how many their owners cancelled. */
    long computationsCancelled;
    long resultsExpired;
    long tasksStored;
    long tasksAssigned;
    long tasksCompleted;
    long completionsReceived;
    long duplicatesDiscarded;
    long eagerReassignments;
    long tasksReleased;
    long effectsRefused;
    /** Completions from a producer that did not hold the task (never sent by an honest one). */
    long completionsRefused;
    long revokesSent;
    long tasksClaimed;
    /** Ready children that the producer which stored them holds in its cache, as if given on prefetch credit. */
    long tasksCachedHere;
    /** Ready children a producer cached itself and was told to drop, as a worker elsewhere needed them. */
    long cachedHereDropped;
    long inputsForwarded;
    long successorsKept;
    long tasksDiffusedIn;
    long tasksDiffusedOut;
    long tasksAdopted;
    long execNanosApplied;
    /** Tasks of validated computations whose result a quorum agreed on. */
    long tasksValidated;
    /** Results of validated tasks that the quorum contradicted. */
    long validationDissents;
    /** Results of validated tasks from an owner that had returned one already (not counted twice). */
    long opinionsOfSameOwner;

    public long computationsSubmitted() { return computationsSubmitted; }
    public long computationsCompleted() { return computationsCompleted; }
    public long computationsFailed() { return computationsFailed; }
    public long computationsCancelled() { return computationsCancelled; }
    public long resultsExpired() { return resultsExpired; }
    public long tasksStored() { return tasksStored; }
    public long tasksAssigned() { return tasksAssigned; }
    public long tasksCompleted() { return tasksCompleted; }
    public long completionsReceived() { return completionsReceived; }
    public long duplicatesDiscarded() { return duplicatesDiscarded; }
    public long eagerReassignments() { return eagerReassignments; }
    public long tasksReleased() { return tasksReleased; }
    public long effectsRefused() { return effectsRefused; }
    public long completionsRefused() { return completionsRefused; }
    public long revokesSent() { return revokesSent; }
    public long tasksClaimed() { return tasksClaimed; }
    public long tasksCachedHere() { return tasksCachedHere; }
    public long cachedHereDropped() { return cachedHereDropped; }

    /** Values forwarded to producers that keep a copy of their unready target. */
    public long inputsForwarded() { return inputsForwarded; }

    /** Times a producer was asked to keep a copy of the successor of a task it was given. */
    public long successorsKept() { return successorsKept; }
    public long tasksDiffusedIn() { return tasksDiffusedIn; }
    public long tasksDiffusedOut() { return tasksDiffusedOut; }
    public long tasksAdopted() { return tasksAdopted; }
    /** Sum of the execution times of applied completions: T1 of what ran here. */
    public long execNanosApplied() { return execNanosApplied; }
    public long tasksValidated() { return tasksValidated; }
    public long validationDissents() { return validationDissents; }
    public long opinionsOfSameOwner() { return opinionsOfSameOwner; }
}
