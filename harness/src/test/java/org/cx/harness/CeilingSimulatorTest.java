package org.cx.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.cx.examples.fib.Fib;
import org.junit.jupiter.api.Test;

class CeilingSimulatorTest {

    @Test
    void smallCasesByHand() {
        // F(1): one leaf.
        CeilingSimulator.Schedule one = CeilingSimulator.simulate(1, 4, 1, 40, 1);
        assertEquals(40, one.makespan());
        assertEquals(0.25, one.efficiency(), 1e-9);
        // F(2) on 2 workers: D(1) | B,B in parallel (40) | C(1): makespan 42, T1 = 1 + 80 + 1.
        CeilingSimulator.Schedule two = CeilingSimulator.simulate(2, 2, 1, 40, 1);
        assertEquals(42, two.makespan());
        assertEquals(82, two.t1());
        assertEquals(82.0 / 2 / 42, two.efficiency(), 1e-9);
        // Its idle time: the second worker waits for D (1, start-up) and while the first runs C (1, wind-down).
        assertEquals(2, two.idleTotal(), 1e-9);
        assertEquals(1, two.idleInitial(), 1e-9);
        assertEquals(1, two.idleTermination(), 1e-9);
        assertEquals(0.5, two.initialShare(), 1e-9);
        assertEquals(0.5, two.terminationShare(), 1e-9);
        // A run of the same DAG whose tasks took twice as long in all would have waited twice as long for D.
        assertEquals(2, two.initialIdleAt(164), 1e-9);
        // F(3) on 1 worker: everything in sequence, efficiency 1.
        CeilingSimulator.Schedule seq = CeilingSimulator.simulate(3, 1, 1, 40, 1);
        assertEquals(1.0, seq.efficiency(), 1e-9);
        assertEquals(2 + 3 * 40 + 2, seq.makespan());
        // F(3) on 2 workers: D3 (1); D2, B1 (40 from t=1); D2 done t=2 -> B1,B0 wait for a worker:
        // t=2 B1' starts, t=41 B0 starts (B1 of D3 done), t=42 C2, t=81 ends B0 -> C2 at 81..82, C3 82..83.
        CeilingSimulator.Schedule three = CeilingSimulator.simulate(3, 2, 1, 40, 1);
        assertEquals(83, three.makespan());
    }

    @Test
    void mixedSpeedsByHand() {
        // F(2) on a worker of speed 2 and one of speed 1: D on the fast one (0.5); the leaves start together,
        // fast 20 (to 20.5), slow 40 (to 40.5); C on the fast one, 40.5..41. T1 = 82; the composite base case is
        // the mean of 82/2 and 82/1 = 61.5, so the efficiency is (61.5 / 2) / 41.
        CeilingSimulator.Schedule mixed = CeilingSimulator.simulate(2, new double[] {1.0, 2.0}, 1, 40, 1);
        assertEquals(41, mixed.makespan(), 1e-9);
        assertEquals(82, mixed.t1(), 1e-9);
        assertEquals(61.5, mixed.composite(), 1e-9);
        assertEquals(61.5 / 2 / 41, mixed.efficiency(), 1e-9);
        // Equal speeds are the homogeneous case.
        assertEquals(CeilingSimulator.simulate(9, 4, 1, 40, 1).makespan(),
                CeilingSimulator.simulate(9, new double[] {1, 1, 1, 1}, 1, 40, 1).makespan(), 1e-9);
    }

    @Test
    void taskCountAndCriticalPathMatchTheFormulas() {
        for (int n = 0; n <= 20; n++) {
            CeilingSimulator.Schedule unbounded = CeilingSimulator.simulate(n, 1 << 20, 1, 1, 1);
            assertEquals(Fib.taskCount(n), unbounded.tasks(), "T(" + n + ")");
            assertEquals(Fib.criticalPath(n), (int) unbounded.makespan(), "critical path of F(" + n + ")");
        }
    }

    @Test
    void paperScaleCeilings() {
        // The paper-scale figures: about 0.92 at n = 13 and 0.99 at n = 18 on 64 workers.
        assertEquals(0.92, CeilingSimulator.simulate(13, 64, 1, 40, 1).efficiency(), 0.01);
        assertEquals(0.99, CeilingSimulator.simulate(18, 64, 1, 40, 1).efficiency(), 0.01);
    }
}
