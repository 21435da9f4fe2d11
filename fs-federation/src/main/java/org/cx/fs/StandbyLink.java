package org.cx.fs;

import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;

/** The primary's end of its standby: the connection the journal goes over, and what the standby acknowledged. */
final class StandbyLink {
    /** How long a primary waits for its standby to acknowledge a batch before going on alone. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(2);
    /** How often an idle primary tells its standby that it lives. */
    static final Duration HEARTBEAT = Duration.ofMillis(500);

    private final ChannelHandlerContext ctx;
    private long acked;

    StandbyLink(ChannelHandlerContext ctx, long acked) {
        this.ctx = ctx;
        this.acked = acked;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    synchronized void acked(long seq) {
        acked = Math.max(acked, seq);
        notifyAll();
    }

    /** Waits until the standby acknowledged record {@code seq}; false after {@link #ACK_TIMEOUT} or a closed link. */
    synchronized boolean awaitAck(long seq) {
        long deadline = System.nanoTime() + ACK_TIMEOUT.toNanos();
        try {
            while (acked < seq) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !ctx.channel().isActive()) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000), 0);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
