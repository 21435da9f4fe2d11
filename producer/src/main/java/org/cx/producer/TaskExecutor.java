package org.cx.producer;

import org.cx.wire.ReadyTask;
import org.cx.wire.TaskRunner;

/** Runs one worker's tasks, one at a time: in the producer's JVM or in a worker process. */
interface TaskExecutor extends AutoCloseable {

    /**
     * Decodes and runs {@code task} where this executor runs task code.
     *
     * @return its outcome, or null if it was stopped because its computation {@linkplain #ended ended}
     */
    TaskRunner.Outcome run(ReadyTask task);

    /** {@code computation} is over: a task of it running now is stopped if it can be (any thread). */
    void ended(long computation);

    /** Times task code ended the process it ran in, which was then replaced. */
    default long restarts() {
        return 0;
    }

    @Override
    void close();

    /** Runs tasks on the worker's own thread: nothing stops a running task, and nothing limits it. */
    final class InProcess implements TaskExecutor {
        private final org.cx.wire.BodyCodecs codecs;
        private final org.cx.wire.TaskHost host;

        InProcess(org.cx.wire.BodyCodecs codecs, org.cx.wire.TaskHost host) {
            this.codecs = codecs;
            this.host = host;
        }

        @Override
        public TaskRunner.Outcome run(ReadyTask task) {
            return TaskRunner.decodeAndRun(codecs, task, host);
        }

        @Override
        public void ended(long computation) {
        }

        @Override
        public void close() {
        }
    }
}
