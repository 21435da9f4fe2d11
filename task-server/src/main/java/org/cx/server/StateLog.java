package org.cx.server;

import org.cx.wire.MirrorOp;

/**
 * Where the scheduler reports each change to its replicated state, in the order it makes them, so that the mirror
 * group can apply the same changes (paper §4.2: a server's task state changes if and only if its mirror group's
 * copy does).
 */
interface StateLog {
    /** Nobody mirrors this server: changes are not recorded at all. */
    StateLog NONE = new StateLog() {
        @Override
        public boolean active() {
            return false;
        }

        @Override
        public void record(MirrorOp op) {
        }
    };

    /** Whether anyone mirrors this server now; the scheduler builds no operations when not. */
    boolean active();

    void record(MirrorOp op);
}
