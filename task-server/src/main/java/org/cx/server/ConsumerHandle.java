package org.cx.server;

/** A connected consumer, as the scheduler sees it: something results can be sent to. */
public interface ConsumerHandle {

    long peerId();

    /**
     * Who submits and collects through this handle: its credential's name, or empty on a plain connection. A
     * computation is seen and collected only by its owner.
     */
    default String owner() {
        return "";
    }
}
