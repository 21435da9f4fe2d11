package org.cx.harness;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.cx.accounting.AccountingService;
import org.cx.accounting.AccountingStore;
import org.cx.accounting.Report;
import org.cx.accounting.UsageSender;
import org.cx.consumer.Consumer;
import org.cx.producer.TaskBox;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.Usage;

/**
 * What accounting costs, and how fast its reports are. The A/B runs F(n) on one warmed-up cluster, alternating
 * runs with metering off and on (usage going to a real accounting service, on the embedded database, over loopback);
 * the report bench fills an embedded database with aggregated rows and times reports over them.
 */
public final class AccountingBench {
    private AccountingBench() {
    }

    /** The medians of the runs without and with metering, and what the service recorded. */
    public record AbResult(FibBench.Outcome off, FibBench.Outcome on, long rowsStored, long batches) {
        /** Throughput with metering over throughput without. */
        public double throughputRatio() {
            return on.tasksPerS() / off.tasksPerS();
        }
    }

    /** Runs {@code pairs} pairs of F(n), one without and one with metering each, in alternating order. */
    public static AbResult ab(FibBench.Settings s, int pairs, PrintStream log) throws Exception {
        Path dir = Files.createTempDirectory("cx-accounting-bench-");
        ServerConfig config = (s.insecure() ? ServerConfig.defaults(null) : ServerConfig.defaults()).withName("bench");
        try (AccountingStore store = AccountingStore.open(AccountingStore.embedded(dir), "", "",
                AccountingStore.Policy.DEFAULT);
             AccountingService service = new AccountingService(store, "127.0.0.1", 0, config.tls());
             UsageSender sender = new UsageSender("bench", () -> "127.0.0.1:" + service.port(), config.tls(),
                     Duration.ofSeconds(1));
             LocalCluster cluster = LocalCluster.start(config, s.servers(), s.producers(), s.workers(), s.prefetch(),
                     false, TaskBox.defaults().withIsolation(s.isolation()), false);
             Consumer consumer = cluster.consumer()) {
            meter(cluster, sender, true);
            for (int i = 0; i < s.warmup(); i++) {
                log.printf("warm-up %d/%d ...%n", i + 1, s.warmup());
                FibBench.measure(s, consumer, cluster);
            }
            List<FibBench.Outcome> off = new ArrayList<>();
            List<FibBench.Outcome> on = new ArrayList<>();
            for (int i = 0; i < 2 * pairs; i++) {
                boolean metering = FibBench.abOn(i);
                meter(cluster, sender, metering);
                FibBench.Outcome o = FibBench.measure(s, consumer, cluster);
                (metering ? on : off).add(o);
                log.printf("run %d/%d, accounting %s: %s%n", i + 1, 2 * pairs, metering ? "on" : "off",
                        FibBench.describe(o));
            }
            meter(cluster, sender, true);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!sender.idle() && System.nanoTime() < deadline) {
                Thread.sleep(100); // the last batch on its way: only the row count waits for it
            }
            return new AbResult(FibBench.median(off), FibBench.median(on), store.size()[0], store.size()[1]);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) throws IOException {
        MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
    }

    private static void meter(LocalCluster cluster, UsageSender sender, boolean on) {
        for (TaskServerNode server : cluster.servers()) {
            server.meterUsage(on ? sender::send : null);
        }
    }

    /** How long reports over an embedded database of {@code rows} aggregated rows take. */
    public record ReportResult(long rows, double fillS, double byUserS, double byHostS, double byComputationS,
                               double balancesS) {
    }

    /**
     * Fills an embedded database with {@code rows} rows of usage (64 producers of 8 owners, 100 users, 10,000
     * computations, spread over price intervals) and times a report of each kind, the median of {@code repeat}.
     */
    public static ReportResult reports(int rows, int repeat, long seed, PrintStream log) throws IOException,
            SQLException {
        Path dir = Files.createTempDirectory("cx-accounting-report-");
        Random random = new Random(seed);
        try (AccountingStore store = AccountingStore.open(AccountingStore.embedded(dir), "", "",
                AccountingStore.Policy.DEFAULT)) {
            long start = System.nanoTime();
            long interval = Usage.intervalOf(System.currentTimeMillis()) - (long) rows * Usage.INTERVAL_MILLIS / 640;
            int batch = 10_000;
            for (int done = 0; done < rows; done += batch) {
                List<Usage> chunk = new ArrayList<>(batch);
                for (int i = done; i < Math.min(rows, done + batch); i++) {
                    // One row per producer, computation and interval: 640 rows per interval.
                    int producer = i % 64;
                    long computation = 1 + (i / 64) % 10;
                    long at = interval + (long) (i / 640) * Usage.INTERVAL_MILLIS;
                    chunk.add(new Usage(at, Usage.Kind.ACCEPTED, "user" + random.nextInt(100), computation
                            + 10 * (i / 640 % 1000), "producer" + producer, "owner" + producer % 8, "c8",
                            1 + random.nextInt(1000), random.nextInt(1_000_000_000), random.nextInt(1_000_000_000),
                            random.nextInt(1 << 20), random.nextInt(1 << 20), random.nextInt(100)));
                }
                store.record("fill-" + done, chunk);
                if (done % 100_000 == 0) {
                    log.printf("filled %,d of %,d rows%n", done, rows);
                }
            }
            double fill = (System.nanoTime() - start) / 1e9;
            log.printf("filled %,d rows in %.1f s; %,d rows stored%n", rows, fill, store.size()[0]);
            Instant all = Instant.ofEpochMilli(Long.MAX_VALUE);
            double user = median(repeat, () -> store.report(Instant.EPOCH, all, Report.By.USER, null,
                    Report.Side.EITHER));
            double host = median(repeat, () -> store.report(Instant.EPOCH, all, Report.By.HOST, null,
                    Report.Side.EITHER));
            double computation = median(repeat, () -> store.report(Instant.EPOCH, all, Report.By.COMPUTATION, null,
                    Report.Side.EITHER));
            double balances = median(repeat, () -> store.balances(null));
            return new ReportResult(store.size()[0], fill, user, host, computation, balances);
        } finally {
            delete(dir);
        }
    }

    private interface Query {
        Object run() throws SQLException;
    }

    private static double median(int repeat, Query q) throws SQLException {
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < repeat; i++) {
            long start = System.nanoTime();
            q.run();
            times.add((System.nanoTime() - start) / 1e9);
        }
        times.sort(Comparator.naturalOrder());
        return times.get((times.size() - 1) / 2);
    }
}
