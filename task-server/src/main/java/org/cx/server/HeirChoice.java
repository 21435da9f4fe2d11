package org.cx.server;

import java.util.List;

/**
 * Who takes over a failed server's tasks (the first step of a repair; {@link FatTree#remove} does the rest). No
 * I/O: the copies the live servers hold are passed in, as the root knows them from their heartbeats.
 *
 * <p>The heir is a member of the failed server's mirror group that holds a complete copy: the most recent copy, then
 * the lowest position. If none does yet (a new group still waiting for its snapshot), it is a former member that
 * still holds the copy it is kept up to date on until then. Every committed change is in such a copy, since a batch
 * commits only once every server it is sent to has it.
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
        int heir = bestHolder(tree, tree.mirrorGroup(failed), failed, copies);
        return heir >= 0 ? heir : bestHolder(tree, tree.ids(), failed, copies);
    }

    private static int bestHolder(FatTree tree, List<Integer> candidates, int failed, Copies copies) {
        int best = -1;
        long bestSeq = -1;
        for (int id : candidates) {
            long seq = id == failed ? -1 : copies.lastSeq(id, failed);
            if (seq > bestSeq || seq >= 0 && seq == bestSeq && tree.position(id) < tree.position(best)) {
                best = id;
                bestSeq = seq;
            }
        }
        return best;
    }
}
