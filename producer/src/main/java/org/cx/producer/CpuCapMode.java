package org.cx.producer;

/** How a producer keeps its task code within a CPU cap below what its workers could use ({@link CpuPlan}). */
public enum CpuCapMode {
    /** Fewer workers, each at full speed; a remainder below one processor is duty-cycled. */
    WORKERS,
    /** Every worker, all stopped and continued alike for a share of each period. */
    DUTY_CYCLE
}
