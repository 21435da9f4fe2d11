package org.cx.server;

import java.util.HashSet;
import java.util.Set;

/**
 * The secondary root's decision to take the primary root's place. Silence alone is not enough: a link between the
 * two roots may be cut while the primary serves everyone else, and two primaries would each run the other's tasks.
 * So the secondary asks the other members, and takes over only when most of the network has lost the primary too.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>The primary has been silent for longer than the failure timeout, or the secondary's connection to it broke:
 *       the secondary {@link #suspect}s it and sends {@code RootQuery} to every other member.</li>
 *   <li>Each member answers {@code RootSeen(silent)}: silent if its own connection to the primary broke, or the
 *       primary has not answered its heartbeats for more than half the failure timeout.</li>
 *   <li>When the secondary and the members that say silent are more than half of the network (the primary
 *       counted), it takes over ({@link #answered} returns true). A network of two has nobody else to ask: the
 *       secondary takes over only once its connection to the primary broke and the primary has not answered for a
 *       failure timeout since ({@link Liveness#rootCrashed}); a cut or a frozen primary leaves the connection open,
 *       and the secondary, cut off, stops instead.</li>
 *   <li>Answers that the primary lives leave it as it is; while the primary stays silent the secondary asks again
 *       each heartbeat period, counting afresh. Meanwhile a primary that cannot hear the secondary declares the
 *       secondary failed, and it stops.</li>
 * </ol>
 */
final class RootTakeover {
    private final Set<Integer> silentVotes = new HashSet<>();
    private boolean asking;

    /** Whether a network of {@code size} servers (the primary counted) needs no vote: nobody else to ask. */
    static boolean alone(int size) {
        return size <= 2;
    }

    /** The primary looks failed: a new round of asking, with this server's own vote. */
    void suspect(int self) {
        asking = true;
        silentVotes.clear();
        silentVotes.add(self);
    }

    boolean asking() {
        return asking;
    }

    /**
     * Member {@code from} answered; returns true when, with it, more than half of the {@code size} servers have
     * lost the primary (then the round is over).
     */
    boolean answered(int from, boolean silent, int size) {
        if (!asking || !silent) {
            return false;
        }
        silentVotes.add(from);
        if (silentVotes.size() > size / 2) {
            asking = false;
            return true;
        }
        return false;
    }

    /** The primary was heard again, or the question is moot: stop asking. */
    void settle() {
        asking = false;
        silentVotes.clear();
    }
}
