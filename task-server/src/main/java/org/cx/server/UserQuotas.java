package org.cx.server;

import java.time.Duration;

/**
 * What one user may hold on a server, so that no consumer exhausts it for the others. A submission over
 * {@code computations} is refused with the reason; a computation whose user holds more than {@code tasks} stored
 * tasks on a server fails with the reason; a running computation whose consumer has been gone (and not collected
 * it again) for {@code abandonedAfter} fails, and its tasks are dropped. Users are told apart by their credentials;
 * on plain connections there are none and only the last rule applies.
 *
 * @param computations   running computations one user may have submitted to this server
 * @param tasks          tasks of one user's computations stored on this server at once
 * @param abandonedAfter how long a running computation may go without a consumer
 */
public record UserQuotas(int computations, long tasks, Duration abandonedAfter) {

    public UserQuotas {
        if (computations < 1 || tasks < 1) {
            throw new IllegalArgumentException("quotas must be at least 1, got " + computations + " computations and "
                    + tasks + " tasks");
        }
        if (!abandonedAfter.isPositive()) {
            throw new IllegalArgumentException("the abandonment time must be positive, got " + abandonedAfter);
        }
    }

    /** 1,000 computations and 20 million stored tasks per user; abandoned after an hour. */
    public static UserQuotas defaults() {
        return new UserQuotas(1_000, 20_000_000, Duration.ofHours(1));
    }
}
