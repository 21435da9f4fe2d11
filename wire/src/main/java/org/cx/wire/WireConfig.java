package org.cx.wire;

/** Constants and limits shared by both ends of a connection. */
public final class WireConfig {

    /** Bumped on every incompatible change to {@link Message} or its encoding. */
    public static final int PROTOCOL_VERSION = 20;

    /**
     * Default hard limit on one frame. 16 MiB holds a batch of thousands of tasks; a larger frame is refused before
     * it is buffered, so one peer cannot make another allocate without bound.
     */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 << 20;

    /**
     * Default limit on one message, which travels in fragments of at most a frame each when it is larger than one:
     * what a task sends and stores in one run, a task with its inputs, a result. The receiver holds a message whole
     * before decoding it, so this bounds what one message can make a process allocate.
     */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 512 << 20;

    private WireConfig() {
    }

    /** The limit in force: {@code -Dcx.maxMessageBytes} or {@link #DEFAULT_MAX_MESSAGE_BYTES}. */
    public static int maxMessageBytes() {
        return Math.max(maxFrameBytes(), Integer.getInteger("cx.maxMessageBytes", DEFAULT_MAX_MESSAGE_BYTES));
    }

    /** The limit in force: {@code -Dcx.maxFrameBytes} or {@link #DEFAULT_MAX_FRAME_BYTES}. */
    public static int maxFrameBytes() {
        return Integer.getInteger("cx.maxFrameBytes", DEFAULT_MAX_FRAME_BYTES);
    }

    /**
     * Whether a server passes a large value on as it arrives to where it will be read ({@link ValueLink#relay}):
     * {@code -Dcx.relayValues}, true unless set to false.
     */
    public static boolean relayValues() {
        return !"false".equals(System.getProperty("cx.relayValues"));
    }

    /**
     * Bytes a second that a server sends, and that it receives, at most over all its connections: {@code
     * -Dcx.serverLinkBytesPerSecond}; 0 (the default) for no cap. It stands in for the server machine's network link
     * when a whole network runs on one machine (benchmarks), and caps what a server takes of a shared one.
     */
    public static long serverLinkBytesPerSecond() {
        return Long.getLong("cx.serverLinkBytesPerSecond", 0);
    }
}
