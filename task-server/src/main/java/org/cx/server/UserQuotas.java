package org.cx.server;

import java.time.Duration;
import java.util.Map;

/**
 * What one user may hold on a server, so that no consumer exhausts it for the others. A submission over
 * {@code computations} is refused with the reason; a computation whose user holds more than {@code tasks} stored
 * tasks, or more than {@code bytes} of their bodies and inputs, on a server fails with the reason; a running computation whose consumer has been gone (and not collected
 * it again) for {@code abandonedAfter} fails, and its tasks are dropped. Users are told apart by their credentials;
 * on plain connections there are none and only the last rule applies.
 *
 * @param computations   running computations one user may have submitted to this server
 * @param tasks          tasks of one user's computations stored on this server at once
 * @param bytes          bytes of application data (task bodies and their inputs) of one user's computations stored on
 *                       this server at once
 * @param abandonedAfter how long a running computation may go without a consumer
 * @param taskTime       how long one task may run, from its first start, before its computation fails (a task that
 *                       loops); meanwhile at most {@link #MAX_RUNNING_COPIES} producers run it at once
 * @param computationTime how much task time (the execution times of its tasks' applied completions, summed) one
 *                       computation may use before it fails; each server checks what it has counted, and the
 *                       computation's origin counts them all as values reach it
 * @param weights        each user's share of the producers relative to the others' ({@link ReadyQueues}); a user
 *                       not named has weight 1
 */
public record UserQuotas(int computations, long tasks, long bytes, Duration abandonedAfter, Duration taskTime,
                         Duration computationTime, Map<String, Integer> weights) {
    /** Eager scheduling gives a late task to at most this many producers at once. */
    public static final int MAX_RUNNING_COPIES = 3;


    /** Quotas with every user of weight 1. */
    public UserQuotas(int computations, long tasks, long bytes, Duration abandonedAfter, Duration taskTime,
                      Duration computationTime) {
        this(computations, tasks, bytes, abandonedAfter, taskTime, computationTime, Map.of());
    }

    public UserQuotas {
        weights = Map.copyOf(weights);
        weights.forEach((user, weight) -> {
            if (weight < 1) {
                throw new IllegalArgumentException("user " + user + "'s weight must be at least 1, got " + weight);
            }
        });
        if (computations < 1 || tasks < 1 || bytes < 1) {
            throw new IllegalArgumentException("quotas must be at least 1, got " + computations + " computations, "
                    + tasks + " tasks and " + bytes + " bytes");
        }
        if (!abandonedAfter.isPositive() || !taskTime.isPositive() || !computationTime.isPositive()) {
            throw new IllegalArgumentException("the abandonment time and the time limits must be positive, got "
                    + abandonedAfter + ", " + taskTime + " and " + computationTime);
        }
    }

    /** {@code user}'s share of the producers relative to other users' (1 unless set). */
    public int weight(String user) {
        return weights.getOrDefault(user, 1);
    }

    /** These quotas with users' weights {@code userWeights}. */
    public UserQuotas withWeights(Map<String, Integer> userWeights) {
        return new UserQuotas(computations, tasks, bytes, abandonedAfter, taskTime, computationTime, userWeights);
    }

    /**
     * 1,000 computations, 20 million stored tasks and 2 GiB of their data per user; abandoned after an hour; a task
     * runs an hour at most, a computation's tasks a week in all.
     */
    public static UserQuotas defaults() {
        return new UserQuotas(1_000, 20_000_000, 2L << 30, Duration.ofHours(1), Duration.ofHours(1),
                Duration.ofDays(7));
    }
}
