package org.cx.cli;

import java.util.Locale;
import java.util.concurrent.Callable;
import org.cx.harness.AccountingBench;
import org.cx.harness.FibBench;
import org.cx.producer.TaskBox;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx bench accounting}: what metering costs, A/B in one run, and how fast reports are. */
@Command(name = "accounting", mixinStandardHelpOptions = true,
        description = {"What accounting costs: F(n) on one warmed-up cluster, runs with metering off and on",
            "alternating (usage going to a real accounting service on the embedded database), the medians and",
            "their ratio. With --report-rows R instead: fills an embedded database with R aggregated rows and",
            "times reports over them. Examples:",
            "  cx bench accounting --n 25 --producers 2 --pairs 5",
            "  cx bench accounting --n 16 --producers 64 --load sleep --leaf-ms 40 --decompose-ms 1 --compose-ms 1",
            "  cx bench accounting --report-rows 1000000"})
final class BenchAccountingCommand extends Printing implements Callable<Integer> {
    @Option(names = "--n", defaultValue = "25", description = "Which Fibonacci number. Default: ${DEFAULT-VALUE}.")
    int n;

    @Option(names = "--servers", defaultValue = "1", description = "Task servers (with more than one, usage goes to "
            + "the mirrors with every burst). Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(names = "--producers", defaultValue = "2", description = "Producers. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--workers", defaultValue = "1", description = "Workers per producer. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Mixin
    LoadOptions load;

    @Option(names = "--warmup", defaultValue = "3", description = "Unmeasured runs first. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(names = "--pairs", defaultValue = "5", description = "Pairs of measured runs (off and on). "
            + "Default: ${DEFAULT-VALUE}.")
    int pairs;

    @Option(names = "--insecure", description = "Plain connections instead of TLS.")
    boolean insecure;

    @Option(names = "--report-rows", paramLabel = "R", description = "Time reports over R aggregated rows instead.")
    Integer reportRows;

    @Option(names = "--seed", description = "Seed of the report bench's rows. Default: random, printed.")
    Long seed;

    @Override
    public Integer call() throws Exception {
        if (reportRows != null) {
            long s = seed != null ? seed : new java.util.Random().nextLong();
            System.err.println("seed " + s);
            AccountingBench.ReportResult r = AccountingBench.reports(reportRows, 3, s, System.err);
            out().printf(Locale.ROOT, "%,d rows (filled in %.1f s); report by user %.3f s, by host %.3f s, "
                    + "by computation %.3f s; balances %.3f s (medians of 3)%n", r.rows(), r.fillS(), r.byUserS(),
                    r.byHostS(), r.byComputationS(), r.balancesS());
            return 0;
        }
        FibBench.Settings s = new FibBench.Settings(n, servers, producers, workers, load.toLoad(), true, false, warmup,
                1, insecure, TaskBox.Isolation.IN_PROCESS, 1);
        AccountingBench.AbResult r = AccountingBench.ab(s, pairs, System.err);
        out().printf(Locale.ROOT, "F(%d), %d servers, %d producers: accounting off %.0f tasks/s, efficiency %.3f; on %.0f "
                        + "tasks/s, efficiency %.3f; throughput on/off %.3f, efficiency on-off %+.3f "
                        + "(medians of %d); %d usage rows in %d batches%n", n, servers, producers, r.off().tasksPerS(),
                r.off().efficiency(), r.on().tasksPerS(), r.on().efficiency(), r.throughputRatio(),
                r.on().efficiency() - r.off().efficiency(), pairs, r.rowsStored(), r.batches());
        return 0;
    }
}
