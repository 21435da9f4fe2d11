package org.cx.wire;

import org.cx.api.TaskId;

/**
 * One execution of a task and all of its effects, applied atomically by the server if and only if it is the first
 * completion of that task.
 *
 * @param id           the task that ran
 * @param spawned      tasks it stored
 * @param values       values it stored
 * @param execNanos    how long the execution took on the producer (wall-clock time)
 * @param cpuNanos     the CPU time the execution took on the producer's thread (0 where it was not measured)
 * @param claimed      index into {@code spawned} of a ready child the producer is already running itself, or -1
 * @param claimedValue index into {@code values} of a value that completes its target's inputs, when the producer
 *                     is already running that target itself (it kept a copy, see {@code keeps}), or -1. At most
 *                     one of {@code claimed} and {@code claimedValue} is set.
 * @param keeps        the producer keeps a copy of each unready task in {@code spawned}: the server forwards the
 *                     values other producers send those tasks, so that the producer whose own value completes one
 *                     can run it at once
 * @param cachedHere   index into {@code spawned} of another ready child the producer put in its own cache, to be
 *                     held there as if the server had given it on prefetch credit (the server may ask it back), or -1
 */
public record Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos, long cpuNanos,
                         int claimed, int claimedValue, boolean keeps, int cachedHere) {

    public Completion {
        if (claimed < -1 || claimed >= spawned.length) {
            throw new IllegalArgumentException("no spawned task " + claimed + " of " + spawned.length);
        }
        if (claimedValue < -1 || claimedValue >= values.length) {
            throw new IllegalArgumentException("no value " + claimedValue + " of " + values.length);
        }
        if (claimed >= 0 && claimedValue >= 0) {
            throw new IllegalArgumentException("a completion claims one task, not a child and a value's target");
        }
        if (cachedHere < -1 || cachedHere >= spawned.length || (cachedHere >= 0 && cachedHere == claimed)) {
            throw new IllegalArgumentException("no other spawned task " + cachedHere + " of " + spawned.length
                    + " to cache");
        }
    }

    /** A completion that caches no child itself. */
    public Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos, long cpuNanos,
                      int claimed, int claimedValue, boolean keeps) {
        this(id, spawned, values, execNanos, cpuNanos, claimed, claimedValue, keeps, -1);
    }

    /**
     * A digest of the task's effects (the tasks it stored and the values it sent, with their bytes), not of how it
     * was run: two producers that ran a deterministic task return equal digests.
     */
    public byte[] effectsDigest() {
        java.security.MessageDigest d;
        try {
            d = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        for (TaskEnvelope e : spawned) {
            digest(d, e.id() + " " + continuationText(e.continuation()) + " " + e.arity() + " " + e.priority() + " "
                    + e.onServer());
            digest(d, e.body());
        }
        digest(d, "values");
        for (ValueEnvelope v : values) {
            digest(d, continuationText(v.to()));
            ValueRef ref = ValueRef.of(v.value());
            digest(d, ref == null ? v.value() : ref.content().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return d.digest();
    }

    private static String continuationText(org.cx.api.Continuation k) {
        return k.isConsumer() ? "consumer" : k.target() + "#" + k.argNo();
    }

    private static void digest(java.security.MessageDigest d, String text) {
        digest(d, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Each part with its length first, so that no two sequences of parts read alike. */
    private static void digest(java.security.MessageDigest d, byte[] part) {
        d.update(java.nio.ByteBuffer.allocate(4).putInt(part.length).array());
        d.update(part);
    }

    /**
     * An upper bound on the bytes this completion takes in a frame: its stored tasks' bodies and its values, and a
     * generous allowance for ids, continuations and lengths.
     */
    public long frameBytes() {
        long n = 256 + idBytes(id);
        for (TaskEnvelope e : spawned) {
            n += e.body().length + 64 + idBytes(e.id()) + (e.continuation().isConsumer() ? 0
                    : idBytes(e.continuation().target()));
        }
        for (ValueEnvelope v : values) {
            n += v.value().length + 64 + (v.to().isConsumer() ? 0 : idBytes(v.to().target()));
        }
        return n;
    }

    /** At most what a task id takes encoded: its computation and a varint per level of its path. */
    private static long idBytes(TaskId task) {
        return 16 + 5L * task.level();
    }

    /**
     * Why this completion cannot be sent in a message of {@code maxMessageBytes}, saying what to do; null if it fits
     * ({@link #frameBytes}).
     */
    public String tooLargeFor(int maxMessageBytes) {
        long bytes = frameBytes();
        if (bytes <= maxMessageBytes) {
            return null;
        }
        return "the effects of task " + id + " (" + spawned.length + " stored tasks and " + values.length
                + " values) take about " + bytes + " bytes, over the message limit of " + maxMessageBytes
                + " bytes (-Dcx.maxMessageBytes on every process): store fewer or smaller tasks and values per task, "
                + "or split the data over several tasks";
    }

    /** A completion that claims nothing and keeps nothing, its CPU time not measured. */
    public Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos) {
        this(id, spawned, values, execNanos, 0);
    }

    /** A completion that claims nothing and keeps nothing. */
    public Completion(TaskId id, TaskEnvelope[] spawned, ValueEnvelope[] values, long execNanos, long cpuNanos) {
        this(id, spawned, values, execNanos, cpuNanos, -1, -1, false);
    }

    /** The same effects, claiming and keeping nothing. */
    public Completion effectsOnly() {
        return new Completion(id, spawned, values, execNanos, cpuNanos);
    }

    /** The same completion, claiming spawned task {@code index}. */
    public Completion withClaim(int index) {
        return new Completion(id, spawned, values, execNanos, cpuNanos, index, -1, keeps, cachedHere);
    }

    /** The same completion, saying the producer cached spawned task {@code index} itself. */
    public Completion withCachedHere(int index) {
        return new Completion(id, spawned, values, execNanos, cpuNanos, claimed, claimedValue, keeps, index);
    }

    /** The same completion, claiming the target of value {@code index}. */
    public Completion withClaimedValue(int index) {
        return new Completion(id, spawned, values, execNanos, cpuNanos, -1, index, keeps, cachedHere);
    }

    /** The same completion, saying whether the producer keeps copies of its unready spawned tasks. */
    public Completion keeping(boolean on) {
        return new Completion(id, spawned, values, execNanos, cpuNanos, claimed, claimedValue, on, cachedHere);
    }

    /** The most inputs a task may wait for and still be kept by producers: keeping costs a message per input. */
    public static final int MAX_KEPT_ARITY = 4;

    /**
     * Whether producers keep copies of a task stored with this envelope: it waits for a few inputs and runs on
     * producers. Producer and server decide by this same rule.
     */
    public static boolean keepable(TaskEnvelope e) {
        return e.arity() > 0 && e.arity() <= MAX_KEPT_ARITY && !e.onServer();
    }

    /** The index of the spawned task a producer should run next itself: the best ready one, or -1. */
    public int bestReadyChild() {
        return bestReadyChildBut(-1);
    }

    /** The best ready spawned task other than {@code but}, or -1. */
    public int bestReadyChildBut(int but) {
        int best = -1;
        for (int i = 0; i < spawned.length; i++) {
            TaskEnvelope e = spawned[i];
            if (i != but && e.arity() == 0 && !e.onServer() && (best < 0 || e.priority() > spawned[best].priority())) {
                best = i;
            }
        }
        return best;
    }
}
