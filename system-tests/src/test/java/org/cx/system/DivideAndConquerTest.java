package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.api.DivideAndConquer;
import org.cx.api.SubmitOptions;
import org.cx.consumer.Consumer;
import org.cx.examples.dc.FibonacciDc;
import org.cx.examples.dc.MergeSortDc;
import org.cx.examples.dc.NQueens;
import org.cx.examples.dc.NQueensDc;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.examples.sort.MergeSort;
import org.cx.harness.LocalCluster;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import org.cx.testing.Seeds;
import org.junit.jupiter.api.Test;

/**
 * The four-method template against the hand-written examples, with task code in worker processes: the same
 * answers, and for Fibonacci the same number of tasks.
 */
class DivideAndConquerTest {

    @Test
    void theTemplateGivesTheHandWrittenAnswersAndDags() throws Exception {
        long seed = Seeds.seed("DivideAndConquerTest.theTemplateGivesTheHandWrittenAnswersAndDags");
        long[] values = new Random(seed).longs(100_000).toArray();
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("dc"), 1, 2, 2, true,
                false, TaskBox.defaults().withIsolation(TaskBox.Isolation.PROCESS));
             Consumer consumer = cluster.consumer()) {
            Consumer.Pending<Long> byHand = consumer.submit(new Fib(15));
            Consumer.Pending<Long> byTemplate = consumer.submit(DivideAndConquer.task(new FibonacciDc(Load.NONE), 15));
            assertEquals(Fib.value(15), byTemplate.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.value(15), byHand.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.taskCount(15), byTemplate.summary().tasks(), "the same DAG as the hand-written Fib");
            assertEquals(byHand.summary().tasks(), byTemplate.summary().tasks());

            Computation<Long> queens = consumer.submit(new NQueens(8, 4));
            Computation<Long> queensDc = consumer.submit(DivideAndConquer.task(new NQueensDc(8, 4), new int[0]));
            assertEquals(92, queens.result().get(120, TimeUnit.SECONDS), "8 queens have 92 solutions");
            assertEquals(92, queensDc.result().get(120, TimeUnit.SECONDS));

            Computation<long[]> sort = consumer.submit(DivideAndConquer.task(new MergeSortDc(10_000),
                    MergeSortDc.all(values.length)), SubmitOptions.defaults().withData(MergeSort.input(values)));
            assertArrayEquals(sorted, sort.result().get(120, TimeUnit.SECONDS), "seed " + seed);
        }
    }
}
