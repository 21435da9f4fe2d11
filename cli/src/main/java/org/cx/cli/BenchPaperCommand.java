package org.cx.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.PaperBench;
import org.cx.harness.PaperReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench paper}: the CX paper's experiments, with their report and charts. */
@Command(name = "paper", mixinStandardHelpOptions = true,
        description = {"Reproduces the CX paper's experiments (section 5) and draws their charts.",
            "On loopback, with Table 2's task times 40x shorter: F(n) for n = 13..18 under both workloads on",
            "64 producers and 1, 3 and 7 servers (Fig. 5 and 6); prefetch on and off for F(11) and F(15)",
            "on 16 producers; and a mix of producer speeds against the paper's composite base case. Writes",
            "results.json, report.md and PNG charts into --out. The full run takes about 5 minutes; --quick",
            "about 2."})
final class BenchPaperCommand extends Printing implements Callable<Integer> {
    @Option(names = "--quick", description = "One run per point instead of the median of three.")
    boolean quick;

    @Option(names = "--out", defaultValue = "cx-paper", paramLabel = "DIR",
            description = "Where to write results.json, report.md and the charts. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--n-min", paramLabel = "N", description = "Smallest n (default 13).")
    Integer nMin;

    @Option(names = "--n-max", paramLabel = "N", description = "Largest n (default 18).")
    Integer nMax;

    @Option(names = "--servers", split = ",", paramLabel = "S",
            description = "NetworkCommand sizes, comma-separated; must include 1 (default 1,3,7).")
    List<Integer> servers;

    @Option(names = "--producers", paramLabel = "P", description = "Producers (default 64).")
    Integer producers;

    @Option(names = "--repeat", paramLabel = "R",
            description = "Measured runs per point (default 3, or 1 with --quick).")
    Integer repeat;

    @Option(names = "--prefetch-producers", paramLabel = "P",
            description = "Producers of the prefetch experiment (default 16).")
    Integer prefetchProducers;

    @Option(names = "--fast-producers", paramLabel = "K",
            description = "Producers of the mixed-speed experiment that run 1720/1377x as fast; 0 skips "
                    + "that experiment (default 4).")
    Integer fastProducers;

    @Option(names = "--time-scale", paramLabel = "F",
            description = "Multiplies every task time (default 1; smaller values only to try the command out "
                    + "quickly: the figures then measure overheads, not the paper's experiment).")
    Double timeScale;

    @Option(names = "--warmup-until-quiet", paramLabel = "S",
            description = "Before each series, warm up until the JIT is quiet (it compiled for under 5%% of "
                    + "each of the last 3 runs and of the last 2 s of runs), for at most S seconds per series "
                    + "(default 60, or 0 with --quick: a fixed warm-up).")
    Integer untilQuietS;

    @Override
    public Integer call() throws Exception {
        PaperBench.Profile base = quick ? PaperBench.Profile.quick() : PaperBench.Profile.full();
        PaperBench.Profile profile = new PaperBench.Profile(base.name(), or(nMin, base.nMin()),
                or(nMax, base.nMax()), servers != null ? servers : base.servers(),
                or(producers, base.producers()), or(repeat, base.repeat()),
                timeScale != null ? timeScale : base.timeScale(),
                or(prefetchProducers, base.prefetchProducers()), base.prefetchNs(),
                or(fastProducers, base.fastProducers()), or(untilQuietS, base.untilQuietS()));
        PaperBench.Results results = PaperBench.run(profile, err());
        StringBuilder command = new StringBuilder("cx");
        for (String arg : spec.commandLine().getParseResult().originalArgs()) {
            command.append(' ').append(arg);
        }
        List<Path> files = PaperReport.write(results, out, command.toString());
        out().printf("%d points in %s; %s%n", results.points().size(),
                PaperBench.minutes(results.elapsedS()),
                results.allCorrect() ? "every result right" : "SOME RESULTS WRONG");
        for (Path f : files) {
            out().println("wrote " + f);
        }
        out().flush();
        return results.allCorrect() ? 0 : 1;
    }

    private static int or(Integer given, int otherwise) {
        return given != null ? given : otherwise;
    }
}
