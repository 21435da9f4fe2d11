package org.cx.harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.api.DivideAndConquer;
import org.cx.api.ValueTask;
import org.cx.consumer.Consumer;
import org.cx.examples.dc.FibonacciDc;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.server.ServerConfig;

/**
 * The four-method {@link DivideAndConquer} Fibonacci against the hand-written {@link Fib}: the same DAG, loads and
 * priorities, run in interleaved rounds (hand-written, template, hand-written, …) on one network.
 */
public final class DcBench {
    private DcBench() {
    }

    /** Wall times of each round, in ms. */
    public record Sample(List<Double> handMs, List<Double> templateMs) {
        /** The template's median time over the hand-written one's. */
        public double ratio() {
            return DataBench.median(templateMs) / DataBench.median(handMs);
        }
    }

    public static Sample run(int n, Load load, int producers, int rounds, PrintStream log) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("dc"), 1, producers, 1,
                true);
             Consumer consumer = cluster.consumer()) {
            for (int i = 0; i < 3; i++) { // warm up both
                time(consumer, new Fib(n, load), n);
                time(consumer, DivideAndConquer.task(new FibonacciDc(load), n), n);
            }
            List<Double> hand = new ArrayList<>();
            List<Double> template = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                hand.add(time(consumer, new Fib(n, load), n));
                template.add(time(consumer, DivideAndConquer.task(new FibonacciDc(load), n), n));
                log.printf("  round %d: hand-written %.1f ms, template %.1f ms%n", i + 1, hand.getLast(),
                        template.getLast());
            }
            return new Sample(hand, template);
        }
    }

    private static double time(Consumer consumer, ValueTask<Long> root, int n) throws Exception {
        long start = System.nanoTime();
        long value = consumer.submit(root).result().get(1, TimeUnit.HOURS);
        if (value != Fib.value(n)) {
            throw new IllegalStateException("F(" + n + ") came out as " + value);
        }
        return (System.nanoTime() - start) / 1e6;
    }
}
