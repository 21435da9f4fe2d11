package org.cx.server;

import java.util.List;
import java.util.Set;

/**
 * Who takes over a failed server's tasks (the first step of a repair; {@link FatTree#remove} does the rest). No
 * I/O: the copies the live servers hold are passed in, as the root knows them from their heartbeats.
 *
 * <p>The heir is a member of the failed server's mirror group that holds a complete copy: the most recent copy, then
 * the lowest position. If none does yet (a new group still waiting for its snapshot), it is a former member that
 * still holds the copy it is kept up to date on until then. Every committed change is in such a copy, since a batch
 * commits only once every server it is sent to has it.
 *
 * <p>Servers failing together are never heirs of each other. When a member of the group that held a complete copy
 * fails too, nobody else's copy is taken: the failed server may have released its former members (once every new
 * member had the snapshot) without their hearing of it, say across a cut, and then went on committing without them.
 * Their copies lack those changes; taking one over would run committed tasks a second time. The state is lost.
 */
final class HeirChoice {

    /** What the root knows of the copies: the last batch of {@code failed} that {@code holder}'s complete copy has. */
    interface Copies {
        /** -1 if {@code holder} holds no complete copy of {@code failed}. */
        long lastSeq(int holder, int failed);
    }

    private HeirChoice() {
    }

    /** The heir of {@code failed} in {@code tree} (which still contains it), or -1 if nobody is known to hold a copy. */
    static int heir(FatTree tree, int failed, Copies copies) {
        return heir(tree, failed, copies, Set.of());
    }

    /**
     * The heir of {@code failed}, which fails together with {@code failing} (none of them an heir), or -1 if no live
     * server is known to hold a copy that has everything {@code failed} committed.
     */
    static int heir(FatTree tree, int failed, Copies copies, Set<Integer> failing) {
        List<Integer> group = tree.mirrorGroup(failed);
        int heir = bestHolder(tree, group, failed, copies, failing);
        if (heir >= 0 || group.stream().anyMatch(m -> copies.lastSeq(m, failed) >= 0)) {
            return heir;
        }
        return bestHolder(tree, tree.ids(), failed, copies, failing);
    }

    private static int bestHolder(FatTree tree, List<Integer> candidates, int failed, Copies copies,
                                  Set<Integer> failing) {
        int best = -1;
        long bestSeq = -1;
        for (int id : candidates) {
            long seq = id == failed || failing.contains(id) ? -1 : copies.lastSeq(id, failed);
            if (seq > bestSeq || seq >= 0 && seq == bestSeq && tree.position(id) < tree.position(best)) {
                best = id;
                bestSeq = seq;
            }
        }
        return best;
    }
}
