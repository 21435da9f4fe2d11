package org.cx.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.cx.consumer.Consumer;
import org.cx.examples.sw.Hit;
import org.cx.examples.sw.Search;
import org.cx.examples.sw.SwData;
import org.cx.fs.FsClient;
import org.cx.fs.Sizes;
import org.cx.harness.LocalCluster;
import org.cx.harness.RecoveryBench;
import org.cx.producer.TaskBox;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cx bench sw}: the Smith-Waterman example with its database in the federated file service against the same
 * computation reading the database from local disk, side by side in one run.
 */
@Command(name = "sw", mixinStandardHelpOptions = true,
        description = {"Runs the Smith-Waterman example (queries scored against a sequence database, one task per",
            "database file) with the database in the federated file service, read by the tasks through",
            "TaskContext.files(), and with the same database on local disk, turn about, --repeats times each",
            "after one warm-up run each; prints the medians and their ratio. One task server, one producer",
            "whose worker processes reach the federation through its relay; a name service and a file server",
            "as processes of their own; TLS unless --insecure."})
final class BenchSwCommand extends Printing implements Callable<Integer> {
    @Option(names = "--parts", defaultValue = "32", description = "Database files. Default: ${DEFAULT-VALUE}.")
    int parts;

    @Option(names = "--sequences", defaultValue = "20000", description = "Database sequences. Default: "
            + "${DEFAULT-VALUE}.")
    int sequences;

    @Option(names = "--length", defaultValue = "300", description = "Mean sequence length (queries too). Default: "
            + "${DEFAULT-VALUE}.")
    int length;

    @Option(names = "--queries", defaultValue = "2", description = "Queries. Default: ${DEFAULT-VALUE}.")
    int queries;

    @Option(names = "--workers", defaultValue = "2", description = "Worker processes of the producer. Default: "
            + "${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--repeats", defaultValue = "3", description = "Runs of each kind. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--insecure", description = "Plain connections everywhere (default: TLS with this user's local "
            + "credentials).")
    boolean insecure;

    @Option(names = "--json", paramLabel = "FILE", description = "Also writes the figures as JSON to FILE.")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (parts < 1 || sequences < parts || length < 2 || queries < 1 || workers < 1 || repeats < 1) {
            throw new IllegalArgumentException("--parts, --length, --queries, --workers and --repeats must be "
                    + "positive, and --sequences at least --parts");
        }
        Path scratch = Files.createTempDirectory("cx-bench-sw");
        FsBenchProcesses processes = new FsBenchProcesses(scratch, insecure);
        try {
            SwData.Made made = SwData.write(scratch.resolve("data"), parts, sequences, length, queries, 1);
            out().printf(Locale.ROOT, "sw: %d queries against %d sequences (%s in %d files), %d workers, %s%n",
                    queries, sequences, Sizes.human(made.bytes()), parts, workers, insecure ? "plain connections"
                            : "TLS");
            out().flush();
            String names = processes.start("names-sw", 1, 0);
            store(names, made.database());
            ServerConfig server = ServerConfig.defaults().withName("bench-sw");
            try (LocalCluster cluster = LocalCluster.start(insecure ? server.withTls(null) : server, 1, 0, 1, true);
                 Consumer consumer = cluster.consumer()) {
                cluster.addProducer(0, workers, c -> c.withFileService(names)
                        .withBox(TaskBox.defaults().withIsolation(TaskBox.Isolation.PROCESS)));
                Search local = new Search(made.queryList(), made.database().toString(), 5);
                Search federated = new Search(made.queryList(), "cx:/sw/db", 5);
                List<Double> localSeconds = new ArrayList<>();
                List<Double> federatedSeconds = new ArrayList<>();
                Hit[] expected = run(consumer, local, null);
                if (!Arrays.equals(expected, run(consumer, federated, null))) {
                    throw new IllegalStateException("the two runs found different hits");
                }
                for (int r = 0; r < repeats; r++) {
                    boolean localFirst = r % 2 == 0;
                    run(consumer, localFirst ? local : federated, localFirst ? localSeconds : federatedSeconds);
                    run(consumer, localFirst ? federated : local, localFirst ? federatedSeconds : localSeconds);
                }
                report(made, localSeconds, federatedSeconds);
            }
        } finally {
            processes.stopAll();
            FsBenchProcesses.deleteTree(scratch);
        }
        return 0;
    }

    /** Copies the database files into the federation's /sw/db. */
    private void store(String names, Path database) throws Exception {
        Tls tls = insecure ? null : CxHome.local(CredentialRole.USER, true);
        try (FsClient fs = FsClient.connect(names, tls, System.getProperty("user.name"));
             Stream<Path> files = Files.list(database)) {
            FsBenchProcesses.awaitServers(fs, 1);
            fs.mkdir("/sw/db", true);
            for (Path f : files.sorted().toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    fs.write("/sw/db/" + f.getFileName(), in, Files.size(f), FsClient.Progress.NONE);
                }
            }
        }
    }

    private Hit[] run(Consumer consumer, Search search, List<Double> seconds) throws Exception {
        long start = System.nanoTime();
        Hit[] hits = consumer.<Hit[]>submit(search).result().get(1, TimeUnit.HOURS);
        if (seconds != null) {
            seconds.add((System.nanoTime() - start) / 1e9);
        }
        return hits;
    }

    private void report(SwData.Made made, List<Double> local, List<Double> federated) throws Exception {
        double l = RecoveryBench.median(local);
        double f = RecoveryBench.median(federated);
        out().printf(Locale.ROOT, "  database on local disk:        %.3f s (median of %d: %s)%n", l, local.size(),
                local);
        out().printf(Locale.ROOT, "  database in the federation:    %.3f s (median of %d: %s)%n", f,
                federated.size(), federated);
        out().printf(Locale.ROOT, "  federation / local: %.3f (target <= 1.05)%n", f / l);
        if (json != null) {
            Map<String, Object> results = new LinkedHashMap<>();
            results.put("tls", !insecure);
            results.put("processors", Runtime.getRuntime().availableProcessors());
            results.put("databaseBytes", made.bytes());
            results.put("parts", parts);
            results.put("sequences", sequences);
            results.put("queries", queries);
            results.put("workers", workers);
            results.put("localSeconds", local);
            results.put("federatedSeconds", federated);
            results.put("ratio", f / l);
            Files.createDirectories(json.toAbsolutePath().getParent());
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), results);
            out().println("wrote " + json);
        }
    }
}
