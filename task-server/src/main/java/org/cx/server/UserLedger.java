package org.cx.server;

import java.util.HashMap;
import java.util.Map;

/**
 * What each user holds on one server, against its {@link UserQuotas}: the tasks of its computations stored here,
 * counted whenever a computation may have stored many at once. Users are credential names; computations on a plain
 * network have none and are not counted. Scheduler thread only.
 */
final class UserLedger {
    private UserQuotas quotas = UserQuotas.defaults();
    /** Stored tasks per user, as last counted. */
    private final Map<String, Long> tasks = new HashMap<>();
    /** Bytes of application data (task bodies and inputs) per user, as last counted. */
    private final Map<String, Long> bytes = new HashMap<>();

    UserQuotas quotas() {
        return quotas;
    }

    void quotas(UserQuotas userQuotas) {
        this.quotas = userQuotas;
    }

    /** Why a user already running {@code running} computations here may not submit another; null if it may. */
    String submissionRefusal(String owner, int running) {
        return running < quotas.computations() ? null : "user " + owner + " runs " + running
                + " computations on this server, its quota (--max-computations-per-user): wait for one to end";
    }

    /**
     * Counts {@code c}'s stored tasks against its user; returns why {@code c} must fail if its user now holds more
     * than the quota here, else null.
     */
    String charge(ComputationState c) {
        if (c.owner.isEmpty()) {
            return null;
        }
        long size = c.tasks.size();
        long held = tasks.merge(c.owner, size - c.countedTasks, Long::sum);
        c.countedTasks = size;
        long heldBytes = bytes.merge(c.owner, c.storedBytes - c.countedBytes, Long::sum);
        c.countedBytes = c.storedBytes;
        if (held > quotas.tasks()) {
            return "user " + c.owner + " holds " + held + " stored tasks on this server, over its quota of "
                    + quotas.tasks() + " (--max-tasks-per-user): computation " + Long.toHexString(c.id)
                    + " stores more tasks than it completes";
        }
        return heldBytes <= quotas.bytes() ? null : "user " + c.owner + "'s stored tasks and their inputs hold "
                + (heldBytes >> 20) + " MiB on this server, over its quota of " + (quotas.bytes() >> 20)
                + " MiB (--max-data-per-user): computation " + Long.toHexString(c.id) + " stores more data than "
                + "it consumes";
    }

    /** {@code c} is over: its tasks no longer count. */
    void uncharge(ComputationState c) {
        if (c.countedTasks != 0) {
            tasks.merge(c.owner, -c.countedTasks, (a, b) -> a + b == 0 ? null : a + b);
            c.countedTasks = 0;
        }
        if (c.countedBytes != 0) {
            bytes.merge(c.owner, -c.countedBytes, (a, b) -> a + b == 0 ? null : a + b);
            c.countedBytes = 0;
        }
    }
}
