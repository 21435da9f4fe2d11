package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.cx.wire.Completion;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.Usage;
import org.cx.wire.ValueEnvelope;

/**
 * Meters what producers' executions used, for the accounting service: every completion a producer returns, as the
 * accepted execution of its task or as a duplicate, is added to a row of its price interval, computation and
 * producer; {@link #drain} hands the rows over and starts afresh. Capacity a producer offered and no task used
 * ({@link Usage.Kind#OFFERED}) is its open workers' connected time (the workers its owner's rules let take tasks)
 * less the wall time of what it ran. Tasks run on the server itself are not metered. Scheduler thread only.
 *
 * <p>A completion costs a comparison with its producer's last row and a few additions: each producer's record is
 * found from the producer itself, and a row is looked up in a map only when the interval, the kind or the
 * computation changes.
 */
final class UsageMeter {
    /** Who a computation's usage is charged to on a network without identities. */
    static final String ANONYMOUS = "anonymous";

    private final LongSupplier wallMillis;
    private final Map<SlotKey, Slot> slots = new HashMap<>();
    /** Every producer metered, with its record. */
    private final Map<ProducerState, Metered> producers = new IdentityHashMap<>();
    /** Offered capacity of producers that left since the last drain. */
    private final List<Usage> departed = new ArrayList<>();

    private record SlotKey(long interval, boolean accepted, long computation, ProducerState producer) {
    }

    /** One row being added up. */
    private static final class Slot {
        final SlotKey key;
        final String consumer;
        long executions;
        long cpuNanos;
        long wallNanos;
        long bytesIn;
        long bytesOut;
        long messages;

        Slot(SlotKey key, String consumer) {
            this.key = key;
            this.consumer = consumer;
        }
    }

    /** A producer as the meter knows it ({@link ProducerState#metered}). */
    static final class Metered {
        /** The row its last completion went to. */
        private Slot last;
        /** When its offered capacity was last counted. */
        private long sinceNanos;
        /** The wall time it ran since. */
        private long busyNanos;
        /** The worker time it offered since, before its open workers last changed. */
        private long offeredBeforeNanos;

        private Metered(long nowNanos) {
            this.sinceNanos = nowNanos;
        }
    }

    UsageMeter(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    private Metered of(ProducerState p, long nowNanos) {
        Metered m = p.metered;
        if (m == null || producers.get(p) != m) {
            m = new Metered(nowNanos);
            p.metered = m;
            producers.put(p, m);
        }
        return m;
    }

    /**
     * {@code p} returned {@code completion} of a task of {@code c} (null: the computation is over here);
     * {@code bytesIn} are the task's bytes and inputs where known.
     */
    void executed(ComputationState c, ProducerState p, Completion completion, long bytesIn, boolean accepted,
                  long nowNanos) {
        long interval = Usage.intervalOf(wallMillis.getAsLong());
        long computation = completion.id().computation();
        Metered m = p.metered != null ? p.metered : of(p, nowNanos);
        Slot s = m.last;
        if (s == null || s.key.interval() != interval || s.key.accepted() != accepted
                || s.key.computation() != computation) {
            SlotKey key = new SlotKey(interval, accepted, computation, p);
            s = slots.get(key);
            if (s == null) {
                s = new Slot(key, c == null || c.owner.isEmpty() ? ANONYMOUS : c.owner);
                slots.put(key, s);
            }
            m.last = s;
        }
        s.executions++;
        s.cpuNanos += completion.cpuNanos();
        s.wallNanos += completion.execNanos();
        s.bytesIn += bytesIn;
        long out = 0;
        for (TaskEnvelope e : completion.spawned()) {
            out += e.body().length;
        }
        for (ValueEnvelope v : completion.values()) {
            out += v.value().length;
        }
        s.bytesOut += out;
        s.messages += completion.spawned().length + completion.values().length;
        m.busyNanos += completion.execNanos();
    }

    /** {@code p} joined: its offered capacity counts from now. */
    void joined(ProducerState p, long nowNanos) {
        p.metered = null;
        of(p, nowNanos);
    }

    /** {@code p}'s open workers are about to change: what they offered so far is counted at the old number. */
    void opening(ProducerState p, long nowNanos) {
        Metered m = producers.get(p);
        if (m != null) {
            m.offeredBeforeNanos += (nowNanos - m.sinceNanos) * p.openWorkers;
            m.sinceNanos = nowNanos;
        }
    }

    /** {@code p} left: its capacity is counted up to now, for the next drain. */
    void left(ProducerState p, long nowNanos) {
        Metered m = producers.remove(p);
        p.metered = null;
        if (m != null) {
            addOffered(p, m, nowNanos, departed);
        }
    }

    /** The rows metered since the last drain, with every connected producer's offered capacity up to now. */
    List<Usage> drain(long nowNanos) {
        List<Usage> rows = drainExecutions();
        rows.addAll(departed);
        departed.clear();
        producers.forEach((p, m) -> addOffered(p, m, nowNanos, rows));
        return rows;
    }

    /** The rows of the executions metered since the last drain. */
    List<Usage> drainExecutions() {
        if (slots.isEmpty()) {
            return new ArrayList<>(); // every burst asks: one that applied nothing walks no producers
        }
        List<Usage> rows = new ArrayList<>(slots.size() + producers.size() + departed.size());
        for (Slot s : slots.values()) {
            ProducerState p = s.key.producer();
            rows.add(new Usage(s.key.interval(), s.key.accepted() ? Usage.Kind.ACCEPTED : Usage.Kind.DUPLICATE,
                    s.consumer, s.key.computation(), p.name, p.owner, Usage.hostType(p.workers), s.executions,
                    s.cpuNanos, s.wallNanos, s.bytesIn, s.bytesOut, s.messages));
        }
        slots.clear();
        producers.values().forEach(m -> m.last = null);
        return rows;
    }

    private void addOffered(ProducerState p, Metered m, long nowNanos, List<Usage> into) {
        long idle = Math.max(0, m.offeredBeforeNanos + (nowNanos - m.sinceNanos) * p.openWorkers - m.busyNanos);
        m.sinceNanos = nowNanos;
        m.busyNanos = 0;
        m.offeredBeforeNanos = 0;
        if (idle > 0) {
            into.add(new Usage(Usage.intervalOf(wallMillis.getAsLong()), Usage.Kind.OFFERED, "", 0, p.name, p.owner,
                    Usage.hostType(p.workers), 0, idle, 0, 0, 0, 0));
        }
    }
}
