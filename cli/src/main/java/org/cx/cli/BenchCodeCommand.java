package org.cx.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.CodeBench;
import org.cx.harness.RecoveryBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench code}: how fast an application's code reaches every producer. */
@Command(name = "code", mixinStandardHelpOptions = true,
        description = {"Measures how fast an application's code reaches every producer.",
            "Submits an application whose code no server or producer has (the Fibonacci classes padded to",
            "--bundle-mb), and measures the time until the last producer runs a task and the bytes the",
            "consumer sent. Runs --runs times; prints each run and the median."})
final class BenchCodeCommand extends Printing implements Callable<Integer> {
    @Option(names = "--servers", defaultValue = "7", description = "Servers. Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(names = "--producers", defaultValue = "64", description = "One-worker producers. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--bundle-mb", defaultValue = "1", paramLabel = "MB",
            description = "Bundle size in MiB. Default: ${DEFAULT-VALUE}.")
    int megabytes;

    @Option(names = "--runs", defaultValue = "3", description = "Runs. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Override
    public Integer call() throws Exception {
        if (servers < 1 || producers < 1 || megabytes < 0 || runs < 1) {
            throw new IllegalArgumentException("--servers, --producers and --runs must be positive, "
                    + "--bundle-mb not negative");
        }
        List<Double> last = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            CodeBench.Sample s = CodeBench.run(servers, producers, megabytes, System.err);
            out().printf("run %d: bundle %,d bytes; first task after %.0f ms; last producer's first task "
                    + "after %.0f ms; consumer sent %,d bytes; server fetches %d; producer fetches %d%n",
                    i + 1, s.bundleBytes(), s.firstTaskMs(), s.lastProducerMs(), s.consumerBytes(),
                    s.serverFetches(), s.producerFetches());
            out().flush();
            last.add(s.lastProducerMs());
        }
        out().printf("median over %d runs: last of %d producers ran its first task %.0f ms after submission%n",
                runs, producers, RecoveryBench.median(last));
        return 0;
    }
}
