package org.cx.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cx.testing.Seeds;
import org.cx.wire.Usage;
import org.junit.jupiter.api.Test;

/** What every database behind the accounting service must do; run on the embedded database and on PostgreSQL. */
abstract class StoreContract {
    /** A new, empty database's store. */
    abstract AccountingStore fresh(AccountingStore.Policy policy) throws Exception;

    /** The same database's store opened again (after the last one was closed). */
    abstract AccountingStore reopen(AccountingStore.Policy policy) throws Exception;

    static final String PRICES = """
            # kind       host-type  hours  per-cpu-hour  per-gib
            consumed     *          0-24   2             0
            contributed  *          0-24   1             0
            offered      *          0-24   0.5           0
            """;
    static final long HOUR = 3_600_000_000_000L;

    static Usage row(long interval, Usage.Kind kind, String consumer, long computation, String producer,
                     String contributor, long executions, long cpuNanos) {
        return new Usage(interval, kind, consumer, computation, producer, contributor, "c2", executions, cpuNanos,
                cpuNanos, 100 * executions, 200 * executions, executions);
    }

    static long now() {
        return Usage.intervalOf(System.currentTimeMillis());
    }

    @Test
    void aBatchSentAgainIsRecordedOnce() throws Exception {
        long seed = Seeds.seed("aBatchSentAgainIsRecordedOnce");
        Random random = new Random(seed);
        try (AccountingStore store = fresh(AccountingStore.Policy.DEFAULT)) {
            store.loadPrices(PriceTable.parse(PRICES), "admin", Instant.EPOCH);
            long executions = 0;
            for (int b = 0; b < 20; b++) {
                List<Usage> rows = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    long n = 1 + random.nextInt(100);
                    executions += n;
                    rows.add(row(now(), Usage.Kind.ACCEPTED, "alice", 1 + random.nextInt(3), "p" + random.nextInt(4),
                            "bob", n, n * 1_000_000));
                }
                assertTrue(store.record("s/" + b, rows));
                assertFalse(store.record("s/" + b, rows), "the same batch again is recognised");
            }
            List<Report.Row> report = store.report(Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE),
                    Report.By.USER, null, Report.Side.EITHER);
            assertEquals(1, report.size());
            assertEquals(executions, report.get(0).executions());
            assertEquals(executions * 1_000_000, report.get(0).cpuNanos());
            assertEquals(2.0 * executions * 1_000_000 / HOUR, report.get(0).charged(), 1e-9);
            assertEquals(20, store.size()[1]);
        }
    }

    @Test
    void usageIsPricedByThePricesInForceAtItsInterval() throws Exception {
        try (AccountingStore store = fresh(AccountingStore.Policy.DEFAULT)) {
            long now = now();
            store.loadPrices(PriceTable.parse(PRICES), "admin", Instant.EPOCH);
            store.loadPrices(PriceTable.parse(PRICES.replace("consumed     *          0-24   2",
                    "consumed     *          0-24   4")), "admin", Instant.ofEpochMilli(now + Usage.INTERVAL_MILLIS));
            store.record("a", List.of(row(now, Usage.Kind.ACCEPTED, "alice", 1, "p", "bob", 1, HOUR)));
            store.record("b", List.of(row(now + Usage.INTERVAL_MILLIS, Usage.Kind.ACCEPTED, "carol", 2, "p", "bob", 1,
                    HOUR)));
            List<Report.Balance> balances = store.balances(null);
            assertEquals(List.of(new Report.Balance("alice", 2, 0), new Report.Balance("bob", 0, 2),
                    new Report.Balance("carol", 4, 0)), balances);
            assertEquals(1, store.prices().number(), "the second version is not in force yet");
        }
    }

    @Test
    void duplicatesAreCreditedAndNotChargedByDefault() throws Exception {
        for (AccountingStore.Policy policy : List.of(AccountingStore.Policy.DEFAULT,
                new AccountingStore.Policy(true, false))) {
            try (AccountingStore store = fresh(policy)) {
                store.loadPrices(PriceTable.parse(PRICES), "admin", Instant.EPOCH);
                store.record("x", List.of(row(now(), Usage.Kind.ACCEPTED, "alice", 1, "p1", "bob", 1, HOUR),
                        row(now(), Usage.Kind.DUPLICATE, "alice", 1, "p2", "dave", 1, HOUR),
                        row(now(), Usage.Kind.OFFERED, "", 0, "p2", "dave", 0, 2 * HOUR)));
                Report.Balance alice = store.balances("alice").get(0);
                Report.Balance dave = store.balances("dave").get(0);
                assertEquals(policy.chargeDuplicates() ? 4 : 2, alice.charged(), 1e-9, policy.toString());
                assertEquals(policy.creditDuplicates() ? 2 : 1, dave.credited(), 1e-9, policy.toString());
            }
        }
    }

    @Test
    void reportsGroupAndWriteAsAsked() throws Exception {
        try (AccountingStore store = fresh(AccountingStore.Policy.DEFAULT)) {
            long at = now(); // once: a second reading may fall in the next interval
            store.record("x", List.of(row(at, Usage.Kind.ACCEPTED, "alice", 1, "p1", "bob", 3, HOUR),
                    row(at, Usage.Kind.ACCEPTED, "alice", 2, "p2", "bob", 4, HOUR),
                    row(at, Usage.Kind.DUPLICATE, "carol", 3, "p2", "bob", 5, HOUR)));
            Instant all = Instant.ofEpochMilli(Long.MAX_VALUE);
            assertEquals(List.of("1", "2", "3"), store.report(Instant.EPOCH, all, Report.By.COMPUTATION, null,
                    Report.Side.EITHER).stream().map(Report.Row::key).toList());
            List<Report.Row> hosts = store.report(Instant.EPOCH, all, Report.By.HOST, null, Report.Side.EITHER);
            assertEquals(4, hosts.get(1).executions());
            assertEquals(5, hosts.get(1).duplicates());
            List<Report.Row> alice = store.report(Instant.EPOCH, all, Report.By.USER, "alice", Report.Side.CONSUMER);
            assertEquals(7, alice.get(0).executions());
            String csv = Report.rows(alice, Report.By.USER, Report.Format.CSV);
            assertTrue(csv.startsWith("user,executions,duplicates,"), csv);
            assertTrue(csv.contains("\nalice,7,0,"), csv);
            String json = Report.rows(alice, Report.By.USER, Report.Format.JSON);
            assertTrue(json.contains("\"executions\" : 7"), json);
            assertTrue(store.report(Instant.EPOCH, Instant.ofEpochMilli(at), Report.By.USER, null,
                    Report.Side.EITHER).isEmpty(), "the interval is outside [from, to)");
        }
    }

    @Test
    void whatIsRecordedOutlivesTheStore() throws Exception {
        try (AccountingStore store = fresh(AccountingStore.Policy.DEFAULT)) {
            store.loadPrices(PriceTable.parse(PRICES), "admin", Instant.EPOCH);
            store.record("kept", List.of(row(now(), Usage.Kind.ACCEPTED, "alice", 1, "p1", "bob", 1, HOUR)));
        }
        try (AccountingStore store = reopen(AccountingStore.Policy.DEFAULT)) {
            assertFalse(store.record("kept", List.of(row(now(), Usage.Kind.ACCEPTED, "alice", 1, "p1", "bob", 1,
                    HOUR))));
            assertEquals(2, store.balances("alice").get(0).charged(), 1e-9);
            assertEquals(1, store.prices().number());
        }
    }

    @Test
    void aPricesFileWithErrorsIsRefusedWithLinesAndReasons() {
        PriceTable.InvalidPricesException e = assertThrows(PriceTable.InvalidPricesException.class,
                () -> PriceTable.parse("""
                        consumed * 0-24 1 0
                        consumd * 0-24 1 0
                        offered * 18-8 1 0
                        contributed * 0-24 -1 0
                        contributed * 0-24 1
                        """));
        assertEquals(4, e.errors().size(), e.getMessage());
        assertTrue(e.errors().get(0).startsWith("line 2: unknown kind 'consumd'"), e.getMessage());
        assertTrue(e.errors().get(1).startsWith("line 3: hours 18-8"), e.getMessage());
        assertTrue(e.errors().get(2).startsWith("line 4: per-cpu-hour -1"), e.getMessage());
        assertTrue(e.errors().get(3).startsWith("line 5: expected 5 columns"), e.getMessage());
    }
}
