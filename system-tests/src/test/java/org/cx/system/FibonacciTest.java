package org.cx.system;

import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.server.EffectAudit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F(n) for n = 0 up to 25 over real sockets, with one and many producers, prefetch on and off. Without prefetch
 * every task costs a round trip, so those cases stop at a smaller n: F(25) alone is 364,177 round trips, which took
 * minutes on a slow day of the 2-core CI machine and once ran past the timeout.
 */
class FibonacciTest {

    @ParameterizedTest(name = "{0} producers x {1} workers, prefetch {2}, n up to {3}")
    @CsvSource({"1, 1, true, 25", "1, 1, false, 20", "1, 4, true, 25", "8, 2, true, 25", "8, 2, false, 22"})
    void computesEveryFibonacciNumberWithTheRightDag(int producers, int workers, boolean prefetch, int maxN)
            throws Exception {
        try (LocalCluster cluster = Clusters.audited(producers, workers, prefetch);
             Consumer consumer = cluster.consumer()) {
            EffectAudit audit = cluster.server().audit();
            for (int n = 0; n <= maxN; n++) {
                audit.clear();
                Consumer.Pending<Long> c = consumer.submit(new Fib(n, Load.NONE));
                long value = c.result().get(Clusters.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                Consumer.Summary summary = c.summary();
                assertEquals(Fib.value(n), value, "F(" + n + ")");
                assertEquals(Fib.taskCount(n), summary.tasks(), "distinct tasks of F(" + n + ") = 3F(n+1)-2");
                assertEquals(Fib.taskCount(n), audit.appliedTasks(), "tasks whose effects were applied");
                assertEquals(1, audit.maxApplied(), "no task's effects applied twice");
                assertTrue(summary.executions() >= summary.tasks());
                if (producers == 1) {
                    // Nobody to copy a task to, and every claim of the only producer is valid: no task runs twice.
                    // (Its workers once claimed kept copies on values another worker had not yet sent.)
                    assertEquals(summary.tasks(), summary.executions(), "executions of F(" + n + ")");
                }
                assertEquals(Fib.criticalPath(n), audit.criticalPath(), "critical path of F(" + n + ") = 2n-1");
            }
        }
    }
}
