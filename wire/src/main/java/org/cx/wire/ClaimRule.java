package org.cx.wire;

/**
 * The producer's claim rule: which task a worker that just ran one runs next itself, without asking its server.
 * It is the best ready child of the task it ran (work-first, as in Cilk: no round trip on the spawn path), or else a
 * kept task its values just completed (no round trip on the join path); copies of the unready tasks it stored are
 * kept for the same reason. {@code cx producer} and the simulation's producers decide by it.
 */
public final class ClaimRule {
    private ClaimRule() {
    }

    /** What a worker reports, and the task it runs next without asking the server (null: none). */
    public record Claim(Completion completion, ReadyTask next) {
    }

    /**
     * @param completion   what the worker's task did
     * @param kept         the producer's kept copies: the completion's unready tasks join them if they fit
     * @param cacheAnother whether a second ready child, if any, goes to the producer's own cache (it has room)
     */
    public static Claim claim(Completion completion, KeptTasks kept, boolean cacheAnother) {
        completion = completion.keeping(kept.keepAll(completion.spawned()));
        ReadyTask joined = null;
        int joinedBy = -1;
        ValueEnvelope[] values = completion.values();
        for (int i = 0; i < values.length; i++) {
            ReadyTask t = kept.supply(values[i]);
            if (t != null && joined == null) {
                joined = t;
                joinedBy = i; // any other task completed here is unclaimed: the server hands it out
            }
        }
        int child = completion.bestReadyChild();
        if (child >= 0) {
            completion = completion.withClaim(child);
            int other = completion.bestReadyChildBut(child);
            if (other >= 0 && cacheAnother) {
                completion = completion.withCachedHere(other); // the next task after this one, without a refill
            }
            return new Claim(completion, new ReadyTask(completion.spawned()[child], new byte[0][]));
        }
        if (joined != null) {
            return new Claim(completion.withClaimedValue(joinedBy), joined);
        }
        return new Claim(completion, null);
    }
}
