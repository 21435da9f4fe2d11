package org.cx.sim;

import java.io.PrintStream;

/**
 * What happened in a run, step by step: folded into one number (two runs of a seed must give the same), and
 * printed when a run is replayed to be read.
 */
final class Trace {
    private final PrintStream out;
    private long hash = 17;

    /** @param out where to print each step, or null to only fold them */
    Trace(PrintStream out) {
        this.out = out;
    }

    void line(long nanos, String text) {
        hash = hash * 31 + nanos;
        hash = hash * 31 + text.hashCode();
        if (out != null) {
            out.printf("%10.3f ms  %s%n", nanos / 1e6, text);
        }
    }

    /** Folds a step that is not printed (a message delivered). */
    void fold(long nanos, int what) {
        hash = hash * 31 + nanos;
        hash = hash * 31 + what;
    }

    long hash() {
        return hash;
    }
}
