package org.cx.wire;

/**
 * A task handed to a producer: the envelope and its inputs, all present.
 *
 * @param task   the stored task
 * @param inputs one encoded value per input, in argument order
 */
public record ReadyTask(TaskEnvelope task, byte[][] inputs) {
}
