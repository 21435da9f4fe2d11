package org.cx.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.consumer.Consumer;
import org.cx.harness.LocalCluster;
import org.cx.harness.RecoveryBench;
import org.cx.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench ep}: the NAS EP kernel on growing numbers of producers. */
@Command(name = "ep", mixinStandardHelpOptions = true,
        description = {"Runs the NAS EP kernel on 1, 2, 4 ... P producers and reports the speedup.",
            "Size M, one server, one-worker producers; prints the time, the speedup over one producer, and",
            "whether the answer matches the NPB reference. EP is pure CPU: the speedup cannot exceed the",
            "cores the producers share.",
            "With --fork-join it instead compares, round after round, the same tasks on P producers of one",
            "worker and on a ForkJoinPool of P threads, in this process on the same cores."})
final class BenchEpCommand extends Printing implements Callable<Integer> {
    @Option(names = "--m", defaultValue = "26", description = "Size: 2^(M+1) random numbers. Default: ${DEFAULT-VALUE}.")
    int m;

    @Option(names = "--max-producers", defaultValue = "64", paramLabel = "P",
            description = "Largest number of producers (powers of two up to it). Default: ${DEFAULT-VALUE}.")
    int maxProducers;

    @Option(names = "--runs", defaultValue = "3", description = "Runs per point (median). Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(names = "--fork-join", paramLabel = "P",
            description = "Compare P one-worker producers with a ForkJoinPool of P threads running the same tasks, "
                    + "--runs rounds of each, alternating (P: the cores to use, e.g. 2).")
    Integer forkJoin;

    @Override
    public Integer call() throws Exception {
        if (m < 16 || m > 34 || maxProducers < 1 || runs < 1) {
            throw new IllegalArgumentException("--m must be in 16..34; --max-producers and --runs positive");
        }
        long batches = 1L << (m - 16);
        if (forkJoin != null) {
            return againstForkJoin(forkJoin, Math.max(1, batches / 256));
        }
        double base = 0;
        boolean allRight = true;
        for (int p = 1; p <= maxProducers; p *= 2) {
            List<Double> times = new ArrayList<>();
            org.cx.examples.ep.Ep.Result last = null;
            try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ep"), 1, p, 1,
                    true); Consumer consumer = cluster.consumer()) {
                for (int r = 0; r <= runs; r++) { // the first run warms up
                    long start = System.nanoTime();
                    last = consumer.<org.cx.examples.ep.Ep.Result>submit(new org.cx.examples.ep.Ep(m,
                            Math.max(1, batches / 256))).result().get();
                    if (r > 0) {
                        times.add((System.nanoTime() - start) / 1e9);
                    }
                }
            }
            double t = RecoveryBench.median(times);
            if (p == 1) {
                base = t;
            }
            String check;
            try {
                boolean ok = org.cx.examples.ep.Ep.verify(m, last);
                allRight &= ok;
                check = ok ? "matches the NPB reference" : "DOES NOT match the NPB reference";
            } catch (IllegalArgumentException e) {
                check = "no NPB reference for this M";
            }
            out().printf("EP M=%d, %2d producers: %.3f s, speedup %.2f; %d Gaussian pairs; %s%n", m, p, t,
                    base / t, last.gaussianPairs(), check);
            out().flush();
        }
        return allRight ? 0 : 1;
    }

    /**
     * Rounds of the same EP tasks on {@code p} one-worker producers and on a ForkJoinPool of {@code p} threads,
     * alternating after one warm-up of each; prints each round's times and CX's throughput as a share of the pool's.
     */
    private int againstForkJoin(int p, long perLeaf) throws Exception {
        if (p < 1) {
            throw new IllegalArgumentException("--fork-join must be at least 1, not " + p);
        }
        List<Double> shares = new ArrayList<>();
        boolean allRight = true;
        java.util.concurrent.ForkJoinPool pool = new java.util.concurrent.ForkJoinPool(p);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("ep"), 1, p, 1, true);
             Consumer consumer = cluster.consumer()) {
            for (int r = 0; r <= runs; r++) { // round 0 warms both up
                long start = System.nanoTime();
                org.cx.examples.ep.Ep.Result viaCx = consumer.<org.cx.examples.ep.Ep.Result>submit(
                        new org.cx.examples.ep.Ep(m, perLeaf)).result().get();
                double cx = (System.nanoTime() - start) / 1e9;
                start = System.nanoTime();
                org.cx.examples.ep.Ep.Result local = org.cx.examples.ep.Ep.forkJoin(m, perLeaf, pool);
                double fj = (System.nanoTime() - start) / 1e9;
                allRight &= viaCx.gaussianPairs() == local.gaussianPairs();
                if (r > 0) {
                    shares.add(fj / cx);
                    out().printf("EP M=%d, round %d: %d producers %.3f s, ForkJoinPool(%d) %.3f s: CX at %.3f of its "
                            + "throughput%n", m, r, p, cx, p, fj, fj / cx);
                    out().flush();
                }
            }
        } finally {
            pool.shutdown();
        }
        out().printf("median of %d rounds: CX at %.3f of the ForkJoinPool's throughput; answers %s%n", runs,
                RecoveryBench.median(shares), allRight ? "equal" : "DIFFER");
        out().flush();
        return allRight ? 0 : 1;
    }
}
