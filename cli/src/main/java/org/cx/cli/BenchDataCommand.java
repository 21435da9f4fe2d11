package org.cx.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.DataBench;
import org.cx.producer.TaskBox;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench data}: what moving data costs, against baselines measured in the same run. */
@Command(name = "data", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures what moving data costs, each against a baseline in the same run:",
            "  value:  a --value-mb MiB value from one task to the next (1 server, 1 producer of 2 workers)",
            "          against a plain TCP copy of the same bytes on loopback; the fixed cost of a 1 KiB value is",
            "          subtracted;",
            "  shared: --tasks tasks reading the same --shared-mb MiB of shared data on --producers producers,",
            "          with the bytes it took on the wire;",
            "  sort:   the merge sort example on --sort-n random longs (1 server, --sort-producers producers of",
            "          --sort-workers workers) against Arrays.parallelSort in this JVM and",
            "          against the same tasks in a ForkJoinPool of as many threads as the producers' workers,",
            "          with the peak resident memory of each process (of this one, or with --sort-processes of",
            "          the server's and each producer's) during each, and, in this JVM, the bytes of large",
            "          values into and out of the server.",
            "Runs each --runs times and prints the medians. Needs a large heap: CX_JAVA_OPTS=-Xmx8g."})
final class BenchDataCommand extends Printing implements Callable<Integer> {
    @Option(names = "--only", paramLabel = "PART", split = ",",
            description = "Run only these parts: value, shared, sort. Default: all.")
    List<String> only;

    @Option(names = "--value-mb", defaultValue = "256", paramLabel = "MIB",
            description = "Size of the value. Default: ${DEFAULT-VALUE}.")
    int valueMiB;

    @Option(names = "--task-isolation", defaultValue = "in-process", paramLabel = "MODE",
            converter = ProducerCommand.IsolationConverter.class,
            description = "Where the value bench's tasks run: in-process, process or sandbox. Default: "
                    + "${DEFAULT-VALUE}.")
    TaskBox.Isolation isolation;

    @Option(names = "--task-heap", defaultValue = "2048", paramLabel = "MIB",
            description = "Heap of each worker process with --task-isolation process|sandbox. Default: "
                    + "${DEFAULT-VALUE}.")
    int taskHeapMiB;

    @Option(names = "--plain", description = "The value bench and the merge sort over plain connections instead of "
            + "TLS (the sort not with --sort-processes).")
    boolean plain;

    @Option(names = "--shared-mb", defaultValue = "100", paramLabel = "MIB",
            description = "Size of the shared data. Default: ${DEFAULT-VALUE}.")
    int sharedMiB;

    @Option(names = "--tasks", defaultValue = "2000", description = "Tasks reading the shared data. Default: "
            + "${DEFAULT-VALUE}.")
    int tasks;

    @Option(names = "--producers", defaultValue = "4", description = "Producers for the shared data. Default: "
            + "${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--sort-n", defaultValue = "16777216", paramLabel = "N",
            description = "Longs to sort. Default: ${DEFAULT-VALUE} (2^24).")
    int sortN;

    @Option(names = "--leaf", defaultValue = "1048576", paramLabel = "N",
            description = "Longs per merge sort leaf. Default: ${DEFAULT-VALUE}.")
    int leaf;

    @Option(names = "--sort-producers", defaultValue = "2", paramLabel = "N",
            description = "Producers of the merge sort. Default: ${DEFAULT-VALUE}.")
    int sortProducers;

    @Option(names = "--sort-workers", defaultValue = "1", paramLabel = "N",
            description = "Workers of each of them. Default: ${DEFAULT-VALUE} (as two machines of one core: values "
                    + "travel between producers; with --sort-producers 1 --sort-workers 2 only to the server).")
    int sortWorkers;

    @Option(names = "--sort-processes", description = "Run the merge sort's server and producers as processes of "
            + "their own (cx server, cx producer running tasks in its JVM) instead of in this JVM, each with "
            + "--process-heap, and report each one's peak resident memory.")
    boolean sortProcesses;

    @Option(names = "--process-heap", defaultValue = "3072", paramLabel = "MIB",
            description = "Heap of each process with --sort-processes. Default: ${DEFAULT-VALUE}.")
    int processHeapMiB;

    @Option(names = "--timeline", paramLabel = "FILE", description = "Record what the server and producers did "
            + "during the last run of the merge sort and write its timeline to FILE, for https://ui.perfetto.dev or "
            + "scripts/timeline-idle.py (not with --sort-processes).")
    java.nio.file.Path timeline;

    @Option(names = "--runs", defaultValue = "3", description = "Runs of each part. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Override
    public Integer call() throws Exception {
        if (valueMiB < 1 || sharedMiB < 1 || tasks < 1 || producers < 1 || sortN < 2 || leaf < 1 || runs < 1
                || sortProducers < 1 || sortWorkers < 1 || processHeapMiB < 64) {
            throw new IllegalArgumentException("every size, count and --runs must be positive, --process-heap at "
                    + "least 64");
        }
        if (sortProcesses && timeline != null) {
            throw new IllegalArgumentException("--timeline records a network in this JVM: not with --sort-processes");
        }
        if (sortProcesses && plain) {
            throw new IllegalArgumentException("--plain runs the merge sort's network in this JVM: not with "
                    + "--sort-processes");
        }
        TaskBox box = isolation == TaskBox.Isolation.IN_PROCESS ? TaskBox.inProcess()
                : new TaskBox(isolation, taskHeapMiB, java.time.Duration.ofHours(1));
        if (wanted("value")) {
            List<Double> ratios = new ArrayList<>();
            List<Double> hops = new ArrayList<>();
            List<Double> tcps = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                DataBench.HopSample s = DataBench.valueHop(valueMiB, box, !plain, System.err);
                ratios.add(s.ratio());
                hops.add(s.cxMs());
                tcps.add(s.tcpMs());
            }
            out().printf("value: %d MiB from one task to the next in %.0f ms, a TCP copy in %.0f ms: CX at %.2f of "
                    + "TCP's throughput (median of %d runs)%n", valueMiB, DataBench.median(hops),
                    DataBench.median(tcps), DataBench.median(ratios), runs);
            out().flush();
        }
        if (wanted("shared")) {
            List<Double> ms = new ArrayList<>();
            DataBench.SharedSample last = null;
            for (int i = 0; i < runs; i++) {
                last = DataBench.shared(sharedMiB, tasks, producers, System.err);
                ms.add(last.ms());
            }
            out().printf("shared: %d tasks read %d MiB of shared data in %.0f ms (median); the consumer sent %,d "
                    + "bytes, the producers fetched it %d times (%,d bytes, %d producers)%n", tasks, sharedMiB,
                    DataBench.median(ms), last.consumerBytes(), last.producerFetches(), last.bytesToProducers(),
                    producers);
            out().flush();
        }
        if (wanted("sort")) {
            List<Double> ratios = new ArrayList<>();
            List<Double> forkJoinRatios = new ArrayList<>();
            DataBench.SortSample last = null;
            for (int i = 0; i < runs; i++) {
                last = DataBench.sort(new DataBench.SortSettings(sortN, leaf, sortProducers, sortWorkers,
                        i == runs - 1 ? timeline : null, sortProcesses ? Cx.class.getName() : null, processHeapMiB,
                        plain),
                        System.err);
                ratios.add(last.ratio());
                forkJoinRatios.add(last.forkJoinRatio());
            }
            out().printf("sort: %,d longs, merge sort on 1 server and %s of %s at %.2f x the time of "
                    + "Arrays.parallelSort and %.2f x that of the same tasks in a ForkJoinPool of %d (medians of %d "
                    + "runs%s); peak resident memory %s, against %d MiB for Arrays.parallelSort%s%n", sortN,
                    count(sortProducers, "producer"), count(sortWorkers, "worker"), DataBench.median(ratios),
                    DataBench.median(forkJoinRatios), sortProducers * sortWorkers, runs, plain ? ", plain" : "",
                    last.peaksInMiB(), last.parallelSortPeakBytes() >> 20, last.serverValuesInMiB());
        }
        return 0;
    }

    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private boolean wanted(String part) {
        return only == null || only.contains(part);
    }
}
