package org.cx.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.NinfBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench ninf}: the Ninf paper's Linpack benchmarks, single and multiple clients. */
@Command(name = "ninf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The Ninf paper's Linpack benchmarks on one server and one producer in this process:",
            "  single: a CX call of Linpack (org.cx.examples.linpack.Linpack.solve, the caller shipping the matrix)",
            "          against the same solve in the caller's thread, for each --sizes, in Mflops;",
            "  clients: --clients clients, each with its own connection, calling Linpack of size --clients-n every",
            "          3 s with probability 1/2 for --duration: mean response time and aggregate Mflops;",
            "  ep:      the same with NAS EP of 2^--ep-m pairs per call (org.cx.examples.ep.Ep.call)."})
final class BenchNinfCommand extends Printing implements Callable<Integer> {
    @Option(names = "--only", paramLabel = "PART", split = ",",
            description = "Run only these parts: single, clients, ep. Default: all.")
    List<String> only;

    @Option(names = "--sizes", defaultValue = "100,200,400,800,1200,1600", split = ",", paramLabel = "N",
            description = "Matrix sizes of the single-client part. Default: ${DEFAULT-VALUE}.")
    int[] sizes;

    @Option(names = "--repeats", defaultValue = "5", description = "Calls per size. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--clients", defaultValue = "1,2,4,8,16", split = ",", paramLabel = "C",
            description = "Client counts of the multi-client part. Default: ${DEFAULT-VALUE}.")
    int[] clients;

    @Option(names = "--clients-n", defaultValue = "600", paramLabel = "N",
            description = "Matrix size of the multi-client part. Default: ${DEFAULT-VALUE}.")
    int clientsN;

    @Option(names = "--ep-m", defaultValue = "24", paramLabel = "M",
            description = "EP pairs per call, as a power of 2: 24 (NPB class S), 25 (W), 28 (A) or 30 (B), whose "
                    + "answers are checked. Default: ${DEFAULT-VALUE}.")
    int epM;

    @Option(names = "--workers", defaultValue = "2",
            description = "Workers of the producer in the multi-client part. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--duration", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "How long each client count runs. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--seed", description = "Seed of the clients' choices. Default: the time.")
    Long seed;

    @Option(names = "--chart", paramLabel = "DIR", description = "Also draw the figures as PNG files in DIR.")
    Path chart;

    @Override
    public Integer call() throws Exception {
        if (repeats < 1 || workers < 1 || duration.isNegative() || duration.isZero()
                || !java.util.Set.of(24, 25, 28, 30).contains(epM)) {
            throw new IllegalArgumentException("--repeats and --workers must be at least 1, --duration positive, "
                    + "--ep-m one of 24, 25, 28, 30");
        }
        for (int n : sizes) {
            if (n < 2 || n > 20_000) {
                throw new IllegalArgumentException("--sizes must be between 2 and 20000, not " + n);
            }
        }
        if (only == null || only.contains("single")) {
            List<NinfBench.Single> rows = NinfBench.single(sizes, repeats, System.err);
            out().println("n\tlocal ms\tlocal Mflops\tcall ms\tcall Mflops");
            for (NinfBench.Single r : rows) {
                out().printf("%d\t%.1f\t%.0f\t%.1f\t%.0f%n", r.n(), r.localMs(), r.localMflops(), r.callMs(),
                        r.callMflops());
            }
            if (chart != null) {
                out().println("chart: " + NinfBench.chart(rows, chart));
            }
        }
        long s = seed == null ? System.nanoTime() : seed;
        if (only == null || only.contains("clients")) {
            clients(NinfBench.linpack(clientsN), s, "linpack-clients.png");
        }
        if (only == null || only.contains("ep")) {
            clients(NinfBench.ep(epM), s, "ep-clients.png");
        }
        out().flush();
        return 0;
    }

    private void clients(NinfBench.Work work, long seed, String chartFile) throws Exception {
        out().println(work.name() + ", seed " + seed);
        List<NinfBench.Multi> rows = NinfBench.multi(work, clients, workers, duration, Duration.ofSeconds(3), 0.5,
                seed, System.err);
        out().println("clients\tcalls\tresponse mean ms\tresponse max ms\tMops per call\tMops in all");
        for (NinfBench.Multi r : rows) {
            out().printf("%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f%n", r.clients(), r.calls(), r.meanResponseMs(),
                    r.maxResponseMs(), r.meanMops(), r.aggregateMops());
        }
        if (chart != null) {
            out().println("chart: " + NinfBench.multiChart(rows, chart, chartFile));
        }
        out().flush();
    }
}
