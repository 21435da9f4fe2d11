package org.cx.api;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Where a computation stands on the server asked, and why it may not be making progress: its tasks there that are
 * ready (waiting for a worker), running (held by producers or the server), and waiting for inputs, with the inputs
 * each of those lacks. {@code stalled}: it has waiting tasks there and none ready or running, so nothing there will
 * send them what they lack; in a network of several servers, tasks on other servers may still.
 *
 * @param computation  the computation's id
 * @param phase        RUNNING, DONE or FAILED
 * @param ready        tasks ready and waiting for a worker
 * @param running      tasks ready and held by a producer, or running on the server
 * @param waiting      tasks waiting for inputs
 * @param waitingTasks some of the waiting tasks (the first {@link #LISTED}), with the inputs each lacks
 * @param stalled      whether it has waiting tasks here and none ready or running
 * @param priority     its priority among its user's computations ({@link SubmitOptions#priority()})
 * @param completed    its tasks completed, as counted at that server so far (all of them once it is DONE)
 * @param elapsed      how long it has run (until it ended, if it has), as that server counts it
 * @param failure      why it failed, if it did; empty otherwise
 */
public record Diagnosis(long computation, String phase, int ready, int running, int waiting,
                        List<Waiting> waitingTasks, boolean stalled, int priority, long completed, Duration elapsed,
                        String failure) {
    /** How many waiting tasks a diagnosis lists at most. */
    public static final int LISTED = 20;

    public Diagnosis {
        waitingTasks = List.copyOf(waitingTasks);
    }

    /**
     * A task waiting for inputs.
     *
     * @param task    its id
     * @param arity   how many inputs it takes
     * @param missing the input numbers it has not received
     */
    public record Waiting(TaskId task, int arity, int[] missing) {
        public Waiting {
            missing = missing.clone();
        }

        @Override
        public int[] missing() {
            return missing.clone();
        }

        @Override
        public String toString() {
            return "task " + task + " waits for input" + (missing.length == 1 ? " " : "s ") + Arrays.toString(missing)
                    .replaceAll("[\\[\\]]", "") + " of " + arity;
        }
    }

    /** Several lines a person can read: the counts, whether it is stalled, and the waiting tasks listed. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("computation ").append(Long.toHexString(computation)).append(" is ").append(phase)
                .append(" after ").append(elapsed.toMillis() / 1000.0).append(" s, priority ").append(priority)
                .append(": ").append(completed).append(" tasks completed, ").append(ready).append(" ready, ")
                .append(running).append(" running, ").append(waiting).append(" waiting for inputs");
        if (!failure.isEmpty()) {
            text.append("\nfailed: ").append(failure);
        }
        if (stalled) {
            text.append("\nstalled: no task of it here is ready or running, so nothing here will send the inputs "
                    + "these wait for (did a task send a value to the wrong continuation, or not send one?)");
        }
        for (Waiting w : waitingTasks) {
            text.append("\n  ").append(w);
        }
        if (waiting > waitingTasks.size()) {
            text.append("\n  … and ").append(waiting - waitingTasks.size()).append(" more");
        }
        return text.toString();
    }
}
