package org.cx.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.junit.jupiter.api.Test;

class FibBenchTest {
    private static final long MS = 1_000_000;

    @Test
    void theCeilingCountsTheTimeTheTasksTookBeyondTheirLoad() {
        Load load = new Load(Load.Kind.SLEEP, MS, 40 * MS, MS);
        int n = 6;
        long tasks = Fib.taskCount(n);
        CeilingSimulator.Schedule nominal = FibBench.limit(n, 4, load);
        // Every task took 0.5 ms longer than its load: the limit is the schedule of those longer tasks.
        double t1S = (nominal.t1() + tasks * 0.5 * MS) / 1e9;
        CeilingSimulator.Schedule asRun = FibBench.asRun(n, 4, load, nominal, t1S, tasks);
        CeilingSimulator.Schedule expected = CeilingSimulator.simulate(n, 4, 1.5 * MS, 40.5 * MS, 1.5 * MS);
        assertEquals(expected.makespan(), asRun.makespan(), 1e-3);
        assertEquals(expected.efficiency(), asRun.efficiency(), 1e-9);
        assertTrue(asRun.efficiency() < nominal.efficiency(), "short tasks grew most: the DAG got harder");
    }

    @Test
    void tasksThatTookNoLongerThanTheirLoadOrHadNoneKeepTheNominalCeiling() {
        Load load = new Load(Load.Kind.SLEEP, MS, 40 * MS, MS);
        CeilingSimulator.Schedule nominal = FibBench.limit(6, 4, load);
        long tasks = Fib.taskCount(6);
        assertSame(nominal, FibBench.asRun(6, 4, load, nominal, nominal.t1() / 1e9, tasks));
        assertSame(nominal, FibBench.asRun(6, 4, load, nominal, nominal.t1() / 2e9, tasks));
        Load none = new Load(Load.Kind.NONE, 0, 0, 0);
        CeilingSimulator.Schedule unit = FibBench.limit(6, 4, none);
        assertSame(unit, FibBench.asRun(6, 4, none, unit, 1.0, tasks));
    }
}
