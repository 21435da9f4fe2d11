package org.cx.server;

import org.cx.api.TaskId;
import org.cx.wire.ReadyTask;

/** Everything the scheduler says to the outside world. The conductor batches it per connection. */
public interface Outbox {

    void assign(ProducerState producer, ReadyTask task);

    void drop(ProducerState producer, TaskId task);

    /** Asks a holder to drop the copies it has not started and answer which (one Released per Revoke). */
    void revoke(ProducerState producer, TaskId[] tasks);

    /** Tells every producer that the computation is over. */
    void computationEnded(long computation);

    void result(ConsumerHandle consumer, long computation, byte[] value, ComputationSummary summary);

    void failed(ConsumerHandle consumer, long computation, String taskId, String reason);

    /** Runs an {@code executeOnServer} task off the scheduler thread; its completion comes back as usual. */
    void runOnServer(ReadyTask task);
}
