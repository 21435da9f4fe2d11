package org.cx.server;

import java.util.Arrays;
import java.util.List;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueRef;

/** The server's record of one stored, not yet completed task. Owned by the scheduler thread. */
final class TaskEntry {
    private static final ProducerState[] NO_HOLDERS = new ProducerState[0];

    final TaskEnvelope envelope;
    /** Its computation's id: read on every change of the ready queues, as one field instead of a chain of three. */
    final long computation;
    /** Its task's priority: read by every comparison in the ready heap, which must not reach the envelope too. */
    final long priority;
    final long seq;
    /** The server that holds this task's successor (its continuation target): values go there. */
    final int home;
    /**
     * Its successor's entry, when that was on this server as this task was stored (a child is stored after the
     * composition it feeds): found without a lookup by id when the task is handed out and when its value comes.
     */
    TaskEntry successor;
    /** It left this server's tasks (applied, moved on, or its computation ended): a successor link to it is void. */
    boolean gone;
    /** Counted by the ready heap as fresh (in the heap, no holder). */
    boolean countedFresh;
    private final byte[][] inputs;
    private int missing;
    /** Position in the ready heap, or -1 when not in it. */
    int heapIndex = -1;
    private ProducerState[] holders = NO_HOLDERS;
    private int holderCount;
    /**
     * Since when the task is known to be running somewhere: given to an idle worker, claimed, or a revoke was
     * refused because it had started. {@code Long.MAX_VALUE} while only prefetched copies exist.
     */
    long runningSinceNanos = Long.MAX_VALUE;
    /** When it was first known to be running anywhere (copies and restarts do not reset it), or MAX_VALUE. */
    long firstRunNanos = Long.MAX_VALUE;
    /** Where this task stands with revokes: never asked, asked and unanswered, or refused (already started). */
    enum Revoke { NONE, REQUESTED, REFUSED }

    Revoke revoke = Revoke.NONE;
    /** Its first current holder got it on prefetch credit, so it may be waiting behind a running task. */
    boolean prefetched;
    /** Spawned by a task completed on this server (not submitted, transferred or adopted here): it may seed. */
    boolean spawnedHere;
    /**
     * Results of a validated computation's task that are not applied yet; null when none is waiting. While it is not
     * null the task is out of the ready heap, waiting for a producer of another owner.
     */
    Opinions opinions;
    /**
     * While unready: the producers that keep a copy, to run it at once if their own value completes it (the one
     * that stored it, and those given a task whose successor it is). Values from anyone else are forwarded to them.
     */
    private ProducerState[] keepers = NO_HOLDERS;
    /**
     * The input whose value was last said to be on its way here by its producer ({@code Message.ValueHeading}) and
     * passed on as it arrives to the keepers; -1: none.
     */
    int inputAhead = -1;
    /**
     * The producer here that holds this ready task's inputs that travel by reference (it made them, or was sent them
     * as a keeper), or null: the task goes to it when it asks, so that those values need not move again.
     */
    ProducerState dataAt;

    TaskEntry(TaskEnvelope envelope, long seq) {
        this(envelope, seq, 0);
    }

    TaskEntry(TaskEnvelope envelope, long seq, int home) {
        this.envelope = envelope;
        this.computation = envelope.id().computation();
        this.priority = envelope.priority();
        this.seq = seq;
        this.home = home;
        this.inputs = new byte[envelope.arity()][];
        this.missing = envelope.arity();
    }

    boolean isReady() {
        return missing == 0;
    }

    /** Bytes of application data this entry holds: the task's body and the inputs it has. */
    long bytes() {
        long n = envelope.body().length;
        for (byte[] input : inputs) {
            n += input == null ? 0 : input.length;
        }
        return n;
    }

    /** Whether an input it has travels by reference (a large value held by a process, not in the entry). */
    boolean hasInputByReference() {
        for (byte[] input : inputs) {
            if (ValueRef.is(input)) {
                return true;
            }
        }
        return false;
    }

    /** Stores an input; returns false if the slot already had a value (a duplicate argument). */
    boolean setInput(int argNo, byte[] value) {
        if (inputs[argNo] != null) {
            return false;
        }
        inputs[argNo] = value;
        missing--;
        return true;
    }

    /** Whether input {@code argNo} is the one input still missing. */
    boolean lacksOnly(int argNo) {
        return missing == 1 && inputs[argNo] == null;
    }

    /** The numbers of the inputs that have not come. */
    int[] missingInputs() {
        int[] missing = new int[this.missing];
        for (int i = 0, n = 0; i < inputs.length && n < missing.length; i++) {
            if (inputs[i] == null) {
                missing[n++] = i;
            }
        }
        return missing;
    }

    /** Input {@code argNo}, or null if it has not come. */
    byte[] input(int argNo) {
        return inputs[argNo];
    }

    /** The inputs so far, null where missing (for mirroring and diffusion). */
    byte[][] inputs() {
        return inputs.clone();
    }

    /** The inputs that are large values held by reference. */
    List<ValueRef> valueRefs() {
        return ValueRef.in(inputs);
    }

    int arity() {
        return inputs.length;
    }

    ReadyTask toReadyTask() {
        return new ReadyTask(envelope, inputs);
    }

    int holderCount() {
        return holderCount;
    }

    boolean heldBy(ProducerState p) {
        for (int i = 0; i < holderCount; i++) {
            if (holders[i] == p) {
                return true;
            }
        }
        return false;
    }

    void addHolder(ProducerState p) {
        if (holderCount == holders.length) {
            holders = Arrays.copyOf(holders, Math.max(2, holderCount * 2));
        }
        holders[holderCount++] = p;
    }

    boolean removeHolder(ProducerState p) {
        for (int i = 0; i < holderCount; i++) {
            if (holders[i] == p) {
                holders[i] = holders[--holderCount];
                holders[holderCount] = null;
                return true;
            }
        }
        return false;
    }

    ProducerState holder(int i) {
        return holders[i];
    }

    /** Adds a keeper; false if it was one already. */
    boolean addKeeper(ProducerState p) {
        for (ProducerState k : keepers) {
            if (k == p) {
                return false;
            }
        }
        keepers = Arrays.copyOf(keepers, keepers.length + 1);
        keepers[keepers.length - 1] = p;
        return true;
    }

    boolean keptBy(ProducerState p) {
        for (ProducerState k : keepers) {
            if (k == p) {
                return true;
            }
        }
        return false;
    }

    /** The keepers; the array is not copied, do not change it. */
    ProducerState[] keepers() {
        return keepers;
    }

    void clearKeepers() {
        keepers = NO_HOLDERS;
    }
}
