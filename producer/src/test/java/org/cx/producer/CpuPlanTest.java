package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CpuPlanTest {
    @Test
    void theOpenWorkersTimesTheDutyStayWithinTheCap() {
        // share, processors, workers, mode, open, duty
        Object[][] cases = {
            {1.0, 2, 2, CpuCapMode.WORKERS, 2, 1.0},
            {1.0, 2, 8, CpuCapMode.WORKERS, 8, 1.0},       // no cap: more workers than processors stay open
            {0.5, 2, 2, CpuCapMode.WORKERS, 1, 1.0},     // half the workers, each at full speed
            {0.5, 2, 2, CpuCapMode.DUTY_CYCLE, 2, 0.5},        // both, half of the time
            {0.25, 2, 2, CpuCapMode.WORKERS, 1, 0.5},    // under one processor: one worker, duty-cycled
            {0.75, 2, 2, CpuCapMode.WORKERS, 2, 0.75},
            {0.75, 4, 2, CpuCapMode.WORKERS, 2, 1.0},    // two workers cannot use three processors
            {0.5, 2, 8, CpuCapMode.DUTY_CYCLE, 8, 0.5},        // eight workers share two processors anyway
            {0.3, 10, 4, CpuCapMode.WORKERS, 3, 1.0},
            {0.0, 2, 2, CpuCapMode.WORKERS, 0, 1.0},     // paused
            {0.0, 2, 2, CpuCapMode.DUTY_CYCLE, 0, 1.0},
        };
        for (Object[] c : cases) {
            CpuPlan plan = CpuPlan.of((double) c[0], (int) c[1], (int) c[2], (CpuCapMode) c[3]);
            String what = c[0] + " of " + c[1] + " processors, " + c[2] + " workers, " + c[3];
            assertEquals((int) c[4], plan.open(), what);
            assertEquals((double) c[5], plan.duty(), 1e-9, what);
        }
    }
}
