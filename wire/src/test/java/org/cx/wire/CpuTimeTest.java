package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** How a task's CPU time is taken: estimated for short tasks, read from the thread's clock for longer ones. */
class CpuTimeTest {
    private static long[] clockNow() {
        return new long[] {ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(), 0};
    }

    @Test
    void aShortTaskCountsItsWallTimeAndIsSubtractedFromTheNextRead() {
        long[] clock = clockNow();
        assertEquals(50_000, TaskRunner.cpuNanos(clock, 50_000));
        assertEquals(30_000, TaskRunner.cpuNanos(clock, 30_000));
        assertEquals(80_000, clock[1], "the short tasks' estimates wait for the next read");
        long spin = spin(20_000_000);
        long measured = TaskRunner.cpuNanos(clock, spin);
        assertTrue(measured > spin / 4 && measured <= spin, "measured " + measured + " of a " + spin + " ns spin");
        assertEquals(0, clock[1]);
    }

    @Test
    void aLongTaskNeverCountsMoreThanItsWallTimeNorLessThanNothing() {
        long[] clock = clockNow();
        spin(20_000_000); // CPU used outside any task, before a task that waited
        assertEquals(TaskRunner.MEASURED_NANOS, TaskRunner.cpuNanos(clock, TaskRunner.MEASURED_NANOS));
        long[] later = clockNow();
        later[1] = 1_000_000_000L; // shorter tasks estimated at more than the clock advanced
        assertEquals(0, TaskRunner.cpuNanos(later, 1_000_000));
    }

    /** Spins the CPU for about {@code nanos}; returns the wall time it took. */
    private static long spin(long nanos) {
        long start = System.nanoTime();
        long x = 0;
        while (System.nanoTime() - start < nanos) {
            x += x * 31 + 7;
        }
        if (x == 42) {
            System.out.println(x);
        }
        return System.nanoTime() - start;
    }
}
