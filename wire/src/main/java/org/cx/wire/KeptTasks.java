package org.cx.wire;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.api.TaskId;

/**
 * Copies of the unready tasks this producer stored, with the inputs it knows of: its own values, and the ones the
 * server forwards from other producers. When a worker's own value completes a kept task, that worker runs it at
 * once and claims it, saving the round trip through the server (in F(n), one per composition level). A value
 * forwarded by the server never starts a task here: if it completes one, the server has made it ready and hands
 * it out itself. Shared by the event loop (forwarded values, drops) and the workers, under the object's lock.
 */
public final class KeptTasks {
    private final int capacity;
    private final Map<TaskId, Kept> byId = new HashMap<>();

    private static final class Kept {
        final TaskEnvelope envelope;
        final byte[][] inputs;
        int missing;

        Kept(TaskEnvelope envelope) {
            this.envelope = envelope;
            this.inputs = new byte[envelope.arity()][];
            this.missing = envelope.arity();
        }

        /** Stores an input; true if it was the last one missing. */
        boolean set(int argNo, byte[] value) {
            if (argNo < 0 || argNo >= inputs.length || inputs[argNo] != null) {
                return false;
            }
            inputs[argNo] = value;
            return --missing == 0;
        }
    }

    /** @param capacity the most tasks kept at once; beyond it, unready tasks are left to the server alone */
    public KeptTasks(int capacity) {
        this.capacity = capacity;
    }

    /**
     * Keeps a copy of every keepable task in {@code spawned}, or of none if they do not all fit; returns whether
     * it kept them (the completion says so, and the server forwards their values only then).
     */
    public synchronized boolean keepAll(TaskEnvelope[] spawned) {
        int count = 0;
        for (TaskEnvelope e : spawned) {
            count += Completion.keepable(e) ? 1 : 0;
        }
        if (count == 0 || byId.size() + count > capacity) {
            return false;
        }
        for (TaskEnvelope e : spawned) {
            if (Completion.keepable(e)) {
                byId.putIfAbsent(e.id(), new Kept(e));
            }
        }
        return true;
    }

    /** The server asks this producer to keep a copy of {@code e} (it holds a task whose successor it is). */
    public synchronized void keep(TaskEnvelope e) {
        if (Completion.keepable(e) && byId.size() < capacity) {
            byId.putIfAbsent(e.id(), new Kept(e));
        }
    }

    /**
     * This producer's own value {@code v}: if it completes a kept task, that task leaves and is returned, ready to
     * run; otherwise null.
     */
    public synchronized ReadyTask supply(ValueEnvelope v) {
        if (v.to().isConsumer()) {
            return null;
        }
        Kept k = byId.get(v.to().target());
        if (k == null || !k.set(v.to().argNo(), v.value())) {
            return null;
        }
        byId.remove(v.to().target());
        return new ReadyTask(k.envelope, k.inputs);
    }

    /** Values the server forwarded. One that completes a kept task drops it: the server hands that task out. */
    public synchronized void forwarded(ValueEnvelope[] values) {
        for (ValueEnvelope v : values) {
            Kept k = v.to().isConsumer() ? null : byId.get(v.to().target());
            if (k != null && k.set(v.to().argNo(), v.value())) {
                byId.remove(v.to().target());
            }
        }
    }

    public synchronized void drop(TaskId[] ids) {
        for (TaskId id : ids) {
            byId.remove(id);
        }
    }

    public synchronized void dropComputation(long computation) {
        byId.keySet().removeIf(id -> id.computation() == computation);
    }

    public synchronized void clear() {
        byId.clear();
    }

    public synchronized int size() {
        return byId.size();
    }

    /** The ids kept now (tests). */
    public synchronized List<TaskId> ids() {
        return new ArrayList<>(byId.keySet());
    }
}
