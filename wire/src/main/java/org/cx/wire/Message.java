package org.cx.wire;

import org.cx.api.TaskId;

/** Every message of the CX protocol. Each is registered with {@link ProtocolCodec}; nothing else can be read. */
public sealed interface Message {

    /** First frame from a client. */
    record Hello(int version, Role role, String name, int workers) implements Message {
    }

    /** The server accepts the handshake; {@code peerId} names this connection in the server's logs and counters. */
    record Welcome(int version, long peerId, String serverName) implements Message {
    }

    /** The peer refuses this connection, and closes it, for the reason given. */
    record Refused(String reason) implements Message {
    }

    /** Consumer: start a computation with this root task (its id is assigned by the server). */
    record Submit(long requestId, TaskEnvelope root) implements Message {
    }

    /** Server: the submission {@code requestId} is computation {@code computation}. */
    record Accepted(long requestId, long computation) implements Message {
    }

    /** Consumer: send me the result of {@code computation} when there is one. */
    record Collect(long computation) implements Message {
    }

    /**
     * Server: the result of {@code computation}, with what it cost: distinct tasks, all executions, the sum of one
     * execution time per task, and the time from submission to result. Kept until {@link Collected} or expiry.
     */
    record Result(long computation, byte[] value, long tasks, long executions, long t1Nanos, long wallNanos)
            implements Message {
    }

    /** Server: {@code computation} failed; {@code taskId} is the task to blame, or empty. */
    record Failed(long computation, String taskId, String reason) implements Message {
    }

    /** Consumer: the result of {@code computation} was delivered; the server may forget it. */
    record Collected(long computation) implements Message {
    }

    /**
     * Producer: send me up to {@code credit} more tasks. {@code idleWorkers} says how many workers have nothing to
     * run right now; only those may be given a task another producer already holds (eager scheduling).
     */
    record Request(int credit, int idleWorkers) implements Message {
    }

    /** Server: these tasks are now in your cache. */
    record Assign(ReadyTask[] tasks) implements Message {
    }

    /** Producer: these tasks ran; apply their effects. */
    record Completed(Completion[] completions) implements Message {
    }

    /** Producer: task {@code id} threw, or could not be decoded; {@code reason} says why. */
    record TaskFailed(TaskId id, String reason) implements Message {
    }

    /** Server: these tasks completed elsewhere; drop them from your cache. */
    record Drop(TaskId[] ids) implements Message {
    }

    /**
     * Server: another producer with an idle worker was given these tasks; drop the ones you have not started and
     * say which with {@link Released}. Started ones run on: eager scheduling lets the faster copy win.
     */
    record Revoke(TaskId[] ids) implements Message {
    }

    /** Producer: these tasks were dropped unstarted after a {@link Revoke}; I no longer hold them. */
    record Released(TaskId[] ids) implements Message {
    }

    /** Server: {@code computation} is over; drop its tasks and classes. */
    record ComputationEnded(long computation) implements Message {
    }
}
