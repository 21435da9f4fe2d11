package org.cx.api;

import java.time.Duration;

/**
 * How a computation is to run, set at submission ({@link TaskServer#submit(Task, SubmitOptions, ResultListener)}).
 * Start from {@link #defaults()} and change what you need:
 * {@code SubmitOptions.defaults().withPriority(5).withTimeout(Duration.ofMinutes(10))}.
 *
 * @param priority  its rank among the computations of the same user: producers go to a user's computations of
 *                  the highest priority first, and computations of equal priority share them equally. Users share
 *                  the producers by their weights whatever their computations' priorities. Changeable while it
 *                  runs ({@link Computation#changePriority}). Default 0; any int.
 * @param timeout   how long it may run, from its acceptance, before it fails with a message saying so; null for
 *                  no limit beyond the servers' own
 * @param quorum    producers of different owners that must return equal effects before a task's effects apply
 *                  (1: no validation, up to 5); see {@link TaskServer#submit(Task, int, ResultListener)}
 * @param data      read-only data its tasks may read ({@link TaskContext#sharedData}); null for none
 */
public record SubmitOptions(int priority, Duration timeout, int quorum, SharedData data) {
    /** The most producers that must agree on a task. */
    public static final int MAX_QUORUM = 5;

    public SubmitOptions {
        if (quorum < 1 || quorum > MAX_QUORUM) {
            throw new IllegalArgumentException("a quorum must be in 1.." + MAX_QUORUM + ", got " + quorum);
        }
        if (timeout != null && !timeout.isPositive()) {
            throw new IllegalArgumentException("a computation's timeout must be positive, got " + timeout);
        }
    }

    /** Priority 0, no timeout, no validation, no shared data. */
    public static SubmitOptions defaults() {
        return new SubmitOptions(0, null, 1, null);
    }

    public SubmitOptions withPriority(int newPriority) {
        return new SubmitOptions(newPriority, timeout, quorum, data);
    }

    public SubmitOptions withTimeout(Duration newTimeout) {
        return new SubmitOptions(priority, newTimeout, quorum, data);
    }

    public SubmitOptions withQuorum(int newQuorum) {
        return new SubmitOptions(priority, timeout, newQuorum, data);
    }

    public SubmitOptions withData(SharedData newData) {
        return new SubmitOptions(priority, timeout, quorum, newData);
    }
}
