package org.cx.producer;

/** How a producer keeps its task code within a CPU cap below what its workers could use ({@link CpuPlan}). */
public enum CpuCapMode {
    /** Only as many workers as the cap has processors, rounded up; duty-cycled only for the fraction. */
    WORKERS,
    /** Every worker, all stopped and continued alike for a share of each period. */
    DUTY_CYCLE
}
