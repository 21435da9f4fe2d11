package org.cx.producer;

/**
 * How a producer keeps task code within a CPU cap: how many of its workers may take tasks, and for what share of
 * each duty-cycle period their processes run (stopped for the rest). Pure: the cap, the machine and the mode in.
 *
 * @param open workers that may take tasks (0: none; the producer is paused)
 * @param duty share of each period during which the worker processes run, (0, 1]
 */
record CpuPlan(int open, double duty) {

    /**
     * The plan for a cap of {@code share} of a machine of {@code processors}, with {@code workers} workers: the
     * processors the open workers can keep busy, times the duty, is at most {@code share * processors}.
     */
    static CpuPlan of(double share, int processors, int workers, CpuCapMode mode) {
        if (share >= 1) {
            return new CpuPlan(workers, 1); // no cap: every worker, however many the owner chose
        }
        double allowed = share * processors;
        if (allowed <= 0) {
            return new CpuPlan(0, 1);
        }
        int open = mode == CpuCapMode.DUTY_CYCLE ? workers : (int) Math.min(workers, Math.ceil(allowed - 1e-9));
        double usable = Math.min(open, processors);
        return new CpuPlan(open, Math.min(1, allowed / usable));
    }

    boolean paused() {
        return open == 0;
    }

    boolean dutyCycled() {
        return open > 0 && duty < 1;
    }
}
