package org.cx.wire;

/** Constants and limits shared by both ends of a connection. */
public final class WireConfig {

    /** Bumped on every incompatible change to {@link Message} or its encoding. */
    public static final int PROTOCOL_VERSION = 13;

    /**
     * Default hard limit on one frame. 16 MiB holds a batch of thousands of tasks; a larger frame is refused before
     * it is buffered, so one peer cannot make another allocate without bound.
     */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 << 20;

    private WireConfig() {
    }

    /** The limit in force: {@code -Dcx.maxFrameBytes} or {@link #DEFAULT_MAX_FRAME_BYTES}. */
    public static int maxFrameBytes() {
        return Integer.getInteger("cx.maxFrameBytes", DEFAULT_MAX_FRAME_BYTES);
    }
}
