package org.cx.server;

import java.time.Duration;

/**
 * The limits a running computation can pass, decided from its times alone, time passed in: the timeout it was
 * submitted with and its consumer gone for longer than the quotas allow (both judged by its origin), and its tasks'
 * time in all (judged by every server for the counts it holds, and reported once). Pure.
 */
final class Deadlines {
    private Deadlines() {
    }

    /** Why {@code c}, held by server {@code self}, must fail at {@code nowNanos}; null if it need not. */
    static String overdue(ComputationState c, int self, UserQuotas quotas, long nowNanos) {
        if (c.phase != ComputationState.Phase.RUNNING) {
            return null;
        }
        boolean origin = c.origin == self;
        if (origin && c.timeoutNanos > 0 && nowNanos - c.submittedNanos > c.timeoutNanos) {
            return "it ran longer than its timeout of " + Duration.ofNanos(c.timeoutNanos).toMillis() / 1000.0
                    + " s (set at submission): its tasks are dropped";
        }
        if (origin && c.consumer == null && c.abandonedSince >= 0
                && nowNanos - c.abandonedSince > quotas.abandonedAfter().toNanos()) {
            return "its consumer has been gone for " + quotas.abandonedAfter().toSeconds() + " s and nobody "
                    + "collected it (--abandoned-after): its tasks are dropped";
        }
        if (!c.overTimeReported && c.taskTimeNanos() > quotas.computationTime().toNanos()) {
            return "its tasks have run for more than " + quotas.computationTime().toSeconds() + " s in all "
                    + "(--computation-time-limit): its tasks are dropped";
        }
        return null;
    }
}
