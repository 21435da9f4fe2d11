package org.cx.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The results of one validated task that are not applied yet: one per producer owner, compared by the digest of
 * their effects, and what they add up to against the computation's quorum. Pure: the scheduler acts on the verdict.
 */
final class Opinions {
    /** The digest of a task that failed: producers agree that it fails, whatever their reasons. */
    static final byte[] FAILED = {'f', 'a', 'i', 'l', 'e', 'd'};

    /** One producer's result: who returned it and a digest of its effects. */
    record Opinion(String owner, String producer, byte[] digest) {
    }

    /** What one more result means for the task. */
    sealed interface Verdict {
        /** An owner that has a result already: it counts once. */
        record SameOwner() implements Verdict {
        }

        /** Not decided: the task waits for an owner that has not run it. */
        record Waiting() implements Verdict {
        }

        /** A quorum agrees: apply the result; {@code contradicted} are the results that differ from it. */
        record Agreed(List<Opinion> contradicted) implements Verdict {
        }

        /** More results than the quorum plus one, and no quorum among them: the task cannot be validated. */
        record Undecidable(int results) implements Verdict {
        }
    }

    private final int quorum;
    private final List<Opinion> all;

    Opinions(int quorum) {
        this.quorum = quorum;
        this.all = new ArrayList<>(quorum + 1);
    }

    /** Adds {@code owner}'s result, returned by {@code producer}, with the digest of its effects. */
    Verdict add(String owner, String producer, byte[] digest) {
        if (heardFrom(owner)) {
            return new Verdict.SameOwner();
        }
        all.add(new Opinion(owner, producer, digest));
        List<Opinion> contradicted = new ArrayList<>();
        for (Opinion o : all) {
            if (!Arrays.equals(o.digest(), digest)) {
                contradicted.add(o);
            }
        }
        if (all.size() - contradicted.size() >= quorum) {
            return new Verdict.Agreed(contradicted);
        }
        return all.size() > quorum ? new Verdict.Undecidable(all.size()) : new Verdict.Waiting();
    }

    /** Whether a producer of {@code owner} has returned a result. */
    boolean heardFrom(String owner) {
        for (Opinion o : all) {
            if (o.owner().equals(owner)) {
                return true;
            }
        }
        return false;
    }
}
