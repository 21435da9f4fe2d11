package org.cx.server;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import org.cx.api.TaskId;

/** The server's view of one connected producer. Owned by the scheduler thread. */
public final class ProducerState {
    final long peerId;
    final String name;
    /** Who answers for its results: its credential's name (on a plain network, the name it gave). */
    final String owner;
    final int workers;
    /** Tasks this producer may still be sent (it asked for them and has not received them). */
    int credit;
    /** What the accounting meter counts of it; null unless metered. */
    UsageMeter.Metered metered;
    /** Workers its owner's rules let take tasks, as it last said (all until it says otherwise). */
    int openWorkers;
    /** Workers the producer last said were idle with nothing cached; decremented as tasks are sent. */
    int idleWorkers;
    /** Computations whose code bundle this producer has been told. */
    final Set<Long> codeSent = new HashSet<>();
    /** Tasks this producer holds a copy of. */
    final Set<TaskEntry> held = new HashSet<>();
    /** Revokes sent and not yet answered, oldest first; each Released answers exactly one. */
    final ArrayDeque<TaskId[]> pendingRevokes = new ArrayDeque<>();
    long tasksAssigned;
    long tasksCompleted;

    /** A producer that answers for itself: its owner is its name. */
    ProducerState(long peerId, String name, int workers) {
        this(peerId, name, name, workers);
    }

    ProducerState(long peerId, String name, String owner, int workers) {
        this.peerId = peerId;
        this.name = name;
        this.owner = owner;
        this.workers = workers;
        this.openWorkers = workers;
    }

    public long peerId() {
        return peerId;
    }

    public String name() {
        return name;
    }

    public int heldCount() {
        return held.size();
    }

    public int workers() {
        return workers;
    }

    public long tasksCompleted() {
        return tasksCompleted;
    }

    @Override
    public String toString() {
        return name + "#" + peerId;
    }
}
