package org.cx.server;

import org.cx.api.TaskId;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;

/** Everything the scheduler says to the outside world. The conductor batches it per connection. */
public interface Outbox {

    void assign(ProducerState producer, ReadyTask task);

    void drop(ProducerState producer, TaskId task);

    /** Asks a producer to keep a copy of unready task {@code task}, whose inputs so far are {@code known}. */
    void keep(ProducerState producer, TaskEnvelope task, ValueEnvelope[] known);

    /** Tells a producer to stop keeping a copy of {@code task}. */
    void unkeep(ProducerState producer, TaskId task);

    /** Forwards a value to a producer that keeps a copy of its target. */
    void input(ProducerState producer, ValueEnvelope value);

    /** Asks a holder to drop the copies it has not started and answer which (one Released per Revoke). */
    void revoke(ProducerState producer, TaskId[] tasks);

    /** Tells every producer that computation {@code computation} runs here now. */
    default void computationStarted(long computation) {
    }

    /** Tells {@code producer}, new here, that computation {@code computation} runs here. */
    default void computationRuns(ProducerState producer, long computation) {
    }

    /**
     * Tells every producer that the computation is over; {@code atOrigin}: it ended here, where it was submitted,
     * so every other server of the network must hear of it too.
     */
    void computationEnded(long computation, boolean atOrigin);

    /** At its origin, computation {@code computation} was given {@code priority}: tell the other servers. */
    default void reprioritized(long computation, int priority) {
    }

    void result(ConsumerHandle consumer, long computation, byte[] value, ComputationSummary summary);

    void failed(ConsumerHandle consumer, long computation, String taskId, String reason);

    /** Tells the consumer that submission {@code requestId} is computation {@code computation}. */
    void accepted(ConsumerHandle consumer, long requestId, long computation);

    /** Sends {@code payload} exactly once to server {@code server} (another server of the network). */
    void route(int server, RoutedPayload payload);

    /** Task {@code id} was stored here: {@code how} is submitted, spawned, transferred or adopted (audit trails). */
    default void stored(TaskId id, String how) {
    }

    /** Task {@code id}'s completion was applied here (audit trails). */
    default void applied(TaskId id) {
    }

    /**
     * The completion just applied was of a task whose inputs were these large values, so nothing reads them again:
     * once the change commits, every process holding them may let them go.
     */
    default void valuesConsumed(java.util.List<org.cx.wire.ValueRef> values) {
    }

    /**
     * Computation {@code computation}, new here, runs from code bundle {@code bundle}: fetch it if this server lacks
     * it, so that producers can load it from here.
     */
    default void codeNeeded(long computation, String bundle) {
    }

    /** Runs an {@code executeOnServer} task off the scheduler thread; its completion comes back as usual. */
    void runOnServer(ReadyTask task);
}
