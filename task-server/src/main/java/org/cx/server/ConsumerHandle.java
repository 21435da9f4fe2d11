package org.cx.server;

/** A connected consumer, as the scheduler sees it: something results can be sent to. */
public interface ConsumerHandle {

    long peerId();
}
