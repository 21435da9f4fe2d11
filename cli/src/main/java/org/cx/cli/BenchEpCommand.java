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
            "cores the producers share."})
final class BenchEpCommand extends Printing implements Callable<Integer> {
    @Option(names = "--m", defaultValue = "26", description = "Size: 2^(M+1) random numbers. Default: ${DEFAULT-VALUE}.")
    int m;

    @Option(names = "--max-producers", defaultValue = "64", paramLabel = "P",
            description = "Largest number of producers (powers of two up to it). Default: ${DEFAULT-VALUE}.")
    int maxProducers;

    @Option(names = "--runs", defaultValue = "3", description = "Runs per point (median). Default: ${DEFAULT-VALUE}.")
    int runs;

    @Override
    public Integer call() throws Exception {
        if (m < 16 || m > 34 || maxProducers < 1 || runs < 1) {
            throw new IllegalArgumentException("--m must be in 16..34; --max-producers and --runs positive");
        }
        long batches = 1L << (m - 16);
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
}
