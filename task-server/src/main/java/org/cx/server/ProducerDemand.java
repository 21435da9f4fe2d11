package org.cx.server;

import java.util.LinkedHashSet;

/**
 * What the producers ask of the scheduler, kept so that a dispatch costs O(assignments × log n) whatever the number
 * of producers: the producers with credit and those with credit and an idle worker, each in round-robin order, and
 * running totals of waiting workers, credit and workers. Every change is O(1).
 */
final class ProducerDemand {
    /** Producers with credit, in round-robin order. */
    final LinkedHashSet<ProducerState> hungry = new LinkedHashSet<>();
    /** Producers with credit and an idle worker, in round-robin order: served before prefetch. */
    final LinkedHashSet<ProducerState> hungryIdle = new LinkedHashSet<>();
    /** Sum over producers of min(idle workers, credit): workers waiting for a task right now. */
    private int idleWaiting;
    /** Sum of the producers' credit: tasks they asked for and have not been given (idle workers and prefetch). */
    private int credit;
    /** Sum of the producers' workers. */
    private int workers;

    void joined(ProducerState p) {
        workers += p.workers;
    }

    void left(ProducerState p) {
        workers -= p.workers;
        set(p, 0, 0);
    }

    /** Changes a producer's credit and idle count, keeping the sets and the totals in step. */
    void set(ProducerState p, int newCredit, int idleWorkers) {
        idleWaiting -= Math.min(p.credit, p.idleWorkers);
        credit += newCredit - p.credit;
        p.credit = newCredit;
        p.idleWorkers = idleWorkers;
        idleWaiting += Math.min(p.credit, p.idleWorkers);
        if (newCredit > 0) {
            hungry.add(p);
        } else {
            hungry.remove(p);
        }
        if (newCredit > 0 && idleWorkers > 0) {
            hungryIdle.add(p);
        } else {
            hungryIdle.remove(p);
        }
    }

    /** Workers waiting for a task right now. */
    int idleWaiting() {
        return idleWaiting;
    }

    /** Tasks the producers asked for and have not been given. */
    int credit() {
        return credit;
    }

    int workers() {
        return workers;
    }
}
