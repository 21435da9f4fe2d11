package org.cx.testing;

/** Random seeds for tests: taken from {@code -Dcx.seed} to replay a failure, printed either way. */
public final class Seeds {

    private Seeds() {
    }

    public static long seed(String testName) {
        Long fixed = Long.getLong("cx.seed");
        long seed = fixed != null ? fixed : System.nanoTime();
        System.out.println("[" + testName + "] random seed " + seed + " (replay with -Dcx.seed=" + seed + ")");
        return seed;
    }
}
