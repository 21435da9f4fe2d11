package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Failure detection by silence, with the time passed in. The primary root watches every member (when it last heard
 * a heartbeat); every member watches the primary root (when it last answered). A broken connection is judged
 * elsewhere, at once; this class judges the silent (a frozen or partitioned process).
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>Each heartbeat period, {@link #check} first asks whether this process itself was not running for more than
 *       half the timeout (frozen, or starved of CPU): then it saw nothing for a while, through no fault of the
 *       others, and nobody is judged on that round; every clock restarts.</li>
 *   <li>Otherwise a member silent for longer than the timeout is failed ({@link #silentMembers}), and so is a root
 *       that has not answered for longer ({@link #rootSilentNanos}).</li>
 *   <li>A member whose root has not answered for {@link #CUT_OFF_TIMEOUTS} timeouts is {@link #cutOff}: the root
 *       declared it failed a timeout ago, and a failed primary would have been replaced by then (the secondary takes
 *       over after one timeout and a round of questions, and its topology counts as an answer).</li>
 *   <li>A root of three members or more declares nobody failed while it does not hear from most of the network
 *       ({@link #hearsMost}): it is then the one cut off, and the others replace it; declaring them failed would
 *       leave two roots committing the same tasks. A timeout later it is {@link #rootCutOff}.</li>
 * </ol>
 */
final class Liveness {

    /** A member that has been silent too long, and for how long. */
    record Silent(int id, long forNanos) {
    }

    /** How many timeouts of silence from the root make a member {@linkplain #cutOff cut off}. */
    static final int CUT_OFF_TIMEOUTS = 2;

    private final long timeoutNanos;
    private final Map<Integer, Long> lastHeard = new HashMap<>();
    private long lastRootAnswer;
    /** When the root last answered, a broken connection to it aside (that counts as silence only for questions). */
    private long rootHeard;
    /** When the connection to the primary root broke, if it has not answered since; else -1. */
    private long rootBrokenAt = -1;
    private long lastCheck;
    /** Root: since when it has not heard from most of the network ({@link #hearsMost}); else -1. */
    private long minoritySince = -1;

    Liveness(long timeoutNanos, long nowNanos) {
        this.timeoutNanos = timeoutNanos;
        this.lastRootAnswer = nowNanos;
        this.rootHeard = nowNanos;
        this.lastCheck = nowNanos;
    }

    /**
     * The periodic check at {@code nowNanos}: whether this process was paused since the last one (then every clock
     * restarts now and nobody may be judged on this round).
     */
    boolean check(long nowNanos) {
        boolean paused = nowNanos - lastCheck > timeoutNanos / 2;
        lastCheck = nowNanos;
        if (paused) {
            lastHeard.replaceAll((id, t) -> nowNanos);
            lastRootAnswer = nowNanos;
            rootHeard = nowNanos;
            rootBrokenAt = rootBrokenAt < 0 ? -1 : nowNanos;
            minoritySince = minoritySince < 0 ? -1 : nowNanos;
        }
        return paused;
    }

    /** Root: a heartbeat from {@code id}. */
    void heard(int id, long nowNanos) {
        lastHeard.put(id, nowNanos);
    }

    /**
     * Root: the members of the network are {@code members}; a new one is given until {@code sinceNanos} (normally
     * now) before its silence counts, and one that left is forgotten.
     */
    void watch(List<Integer> members, long sinceNanos) {
        for (int id : members) {
            lastHeard.putIfAbsent(id, sinceNanos);
        }
        lastHeard.keySet().removeIf(id -> !members.contains(id));
    }

    /** The members, each given until {@code untilNanos} before silence counts: a new root's grace. */
    void graceUntil(List<Integer> members, long untilNanos) {
        for (int id : members) {
            lastHeard.put(id, untilNanos);
        }
    }

    void forget(int id) {
        lastHeard.remove(id);
    }

    /** The members other than {@code self} silent for longer than the timeout at {@code nowNanos}. */
    List<Silent> silentMembers(int self, long nowNanos) {
        List<Silent> silent = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : lastHeard.entrySet()) {
            long quiet = nowNanos - e.getValue();
            if (e.getKey() != self && quiet > timeoutNanos) {
                silent.add(new Silent(e.getKey(), quiet));
            }
        }
        return silent;
    }

    /**
     * Root: whether it still hears from most of the network at {@code nowNanos}: itself and the members other than
     * {@code self} heard within half the timeout are more than half of the {@code size} members. Judged only for
     * three members or more (a network of two has no majority without both). Notes the first no of a run of them,
     * from which {@link #rootCutOff} counts.
     */
    boolean hearsMost(int self, int size, long nowNanos) {
        if (RootTakeover.alone(size)) {
            return true;
        }
        int heard = 1;
        for (Map.Entry<Integer, Long> e : lastHeard.entrySet()) {
            if (e.getKey() != self && nowNanos - e.getValue() <= timeoutNanos / 2) {
                heard++;
            }
        }
        if (2 * heard > size) {
            minoritySince = -1;
            return true;
        }
        if (minoritySince < 0) {
            minoritySince = nowNanos;
        }
        return false;
    }

    /**
     * Root: whether it has not heard from most of the network for a timeout at {@code nowNanos} ({@link #hearsMost}
     * said no all that time, from half a timeout of their silence on): the rest of the network replaces it about
     * then, as it takes over after a timeout of silence and a round of questions.
     */
    boolean rootCutOff(long nowNanos) {
        return minoritySince >= 0 && nowNanos - minoritySince > timeoutNanos;
    }

    /** The primary root answered a heartbeat (or a topology came from it). */
    void rootAnswered(long nowNanos) {
        lastRootAnswer = nowNanos;
        rootHeard = nowNanos;
        rootBrokenAt = -1;
    }

    /** The connection to the primary root broke at {@code nowNanos}: it counts as silent until it answers again. */
    void rootLost(long nowNanos) {
        lastRootAnswer = Long.MIN_VALUE / 2;
        if (rootBrokenAt < 0) {
            rootBrokenAt = nowNanos;
        }
    }

    /**
     * Whether the primary root looks crashed at {@code nowNanos}, as the secondary of a network of two must judge it
     * with nobody to ask: its connection broke (a killed process's does) and it has not answered for a timeout since,
     * though this server kept calling. Silence alone is not enough: a cut or a frozen primary leaves the connection
     * open, and a secondary that took over then would run the primary's tasks beside it; it stops instead once it is
     * {@linkplain #cutOff cut off}.
     */
    boolean rootCrashed(long nowNanos) {
        return rootBrokenAt >= 0 && nowNanos - rootBrokenAt > timeoutNanos;
    }

    /** Whether the primary root has not answered for longer than {@code nanos} at {@code nowNanos}. */
    boolean rootSilentFor(long nowNanos, long nanos) {
        return nowNanos - lastRootAnswer > nanos;
    }

    /** How long the primary root has been silent at {@code nowNanos}, if longer than the timeout; else 0. */
    long rootSilentNanos(long nowNanos) {
        long quiet = nowNanos - lastRootAnswer;
        return quiet > timeoutNanos ? quiet : 0;
    }

    /**
     * Whether a member is cut off from the root at {@code nowNanos}: no answer for {@link #CUT_OFF_TIMEOUTS}
     * timeouts. A broken connection alone does not count (the primary may have crashed, and the secondary replaces it
     * within about a timeout); silence since the last answer does.
     */
    boolean cutOff(long nowNanos) {
        return nowNanos - rootHeard > CUT_OFF_TIMEOUTS * timeoutNanos;
    }
}
