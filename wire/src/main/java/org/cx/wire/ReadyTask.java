package org.cx.wire;

/**
 * A task handed to a producer: the envelope and its inputs, all present.
 *
 * @param task   the stored task
 * @param inputs one encoded value per input, in argument order
 */
public record ReadyTask(TaskEnvelope task, byte[][] inputs) {

    /** About the bytes it takes encoded: its body and inputs, and room for the rest. */
    public long bytes() {
        long n = 128 + task.body().length;
        for (byte[] input : inputs) {
            n += 8 + (input == null ? 0 : input.length);
        }
        return n;
    }
}
