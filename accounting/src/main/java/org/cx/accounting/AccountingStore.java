package org.cx.accounting;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cx.wire.Usage;
import org.flywaydb.core.Flyway;

/**
 * The accounting service's database, through JDBC: the schema is created and migrated by Flyway when the store
 * opens. Usage is recorded a batch at a time, in one transaction with the batch's id, so that a batch sent again is
 * recognised and its usage counted once; each row is priced when it is recorded, by the prices in force at the
 * start of its interval. Writes go through one connection, one batch at a time; reports read on their own.
 */
public final class AccountingStore implements AutoCloseable {
    private final String url;
    private final String user;
    private final String password;
    private final Policy policy;
    private final Connection writer;
    private final PriceBook book;

    /**
     * How executions of one task beyond the first are paid for: by default the consumer pays for the accepted
     * execution only and each producer is credited for what it ran.
     *
     * @param chargeDuplicates the consumer pays for every execution
     * @param creditDuplicates producers are credited for executions whose effects were discarded
     */
    public record Policy(boolean chargeDuplicates, boolean creditDuplicates) {
        public static final Policy DEFAULT = new Policy(false, true);
    }

    private AccountingStore(String url, String user, String password, Policy policy) throws SQLException {
        this.url = url;
        this.user = user;
        this.password = password;
        this.policy = policy;
        Flyway.configure().dataSource(url, user, password).locations("classpath:db/accounting").load().migrate();
        this.writer = connect();
        writer.setAutoCommit(false);
        this.book = PriceBook.load(writer);
    }

    /**
     * Opens the database at {@code url} ({@link #embedded} for the default), creating or migrating its schema.
     *
     * @throws SQLException saying what failed, if the database cannot be reached or migrated
     */
    public static AccountingStore open(String url, String user, String password, Policy policy) throws SQLException {
        try {
            return new AccountingStore(url, user, password, policy);
        } catch (org.flywaydb.core.api.FlywayException e) {
            String why = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
            if (why.contains("already in use")) {
                why = "another accounting service keeps its records there; stop it, or give this one another --data";
            }
            throw new SQLException("cannot open or migrate the accounting database at " + url + ": " + why, e);
        }
    }

    /** The JDBC URL of the embedded database in {@code dataDir}: every commit is written out before it returns. */
    public static String embedded(Path dataDir) {
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("accounting") + ";WRITE_DELAY=0";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Records {@code rows} as batch {@code id}, all or nothing; returns false, recording nothing, if a batch of that
     * id was recorded before. When it returns, the batch is committed.
     */
    public synchronized boolean record(String id, List<Usage> rows) throws SQLException {
        try {
            try (PreparedStatement seen = writer.prepareStatement("SELECT 1 FROM batches WHERE id = ?")) {
                seen.setString(1, id);
                try (ResultSet r = seen.executeQuery()) {
                    if (r.next()) {
                        writer.rollback();
                        return false;
                    }
                }
            }
            try (PreparedStatement batch = writer.prepareStatement(
                    "INSERT INTO batches (id, recorded_at, row_count) VALUES (?, ?, ?)")) {
                batch.setString(1, id);
                batch.setLong(2, System.currentTimeMillis());
                batch.setInt(3, rows.size());
                batch.executeUpdate();
            }
            Map<String, double[]> balances = new TreeMap<>();
            try (PreparedStatement add = writer.prepareStatement("UPDATE usage_rows SET executions = executions + ?, "
                    + "duplicates = duplicates + ?, cpu_nanos = cpu_nanos + ?, offered_nanos = offered_nanos + ?, "
                    + "wall_nanos = wall_nanos + ?, bytes_in = bytes_in + ?, bytes_out = bytes_out + ?, "
                    + "messages = messages + ?, charged = charged + ?, credited = credited + ? "
                    + "WHERE interval_start = ? AND consumer = ? AND computation = ? AND producer = ? "
                    + "AND contributor = ? AND host_type = ?");
                 PreparedStatement insert = writer.prepareStatement("INSERT INTO usage_rows (executions, duplicates, "
                         + "cpu_nanos, offered_nanos, wall_nanos, bytes_in, bytes_out, messages, charged, credited, "
                         + "interval_start, consumer, computation, producer, contributor, host_type) "
                         + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (Usage row : rows) {
                    double[] credits = bind(add, row);
                    if (add.executeUpdate() == 0) {
                        bind(insert, row);
                        insert.executeUpdate();
                    }
                    if (!row.consumer().isEmpty()) {
                        balances.computeIfAbsent(row.consumer(), u -> new double[2])[0] += credits[0];
                    }
                    balances.computeIfAbsent(row.contributor(), u -> new double[2])[1] += credits[1];
                }
            }
            addToBalances(balances);
            writer.commit();
            return true;
        } catch (SQLException | RuntimeException e) {
            writer.rollback();
            throw e;
        }
    }

    private void addToBalances(Map<String, double[]> balances) throws SQLException {
        try (PreparedStatement add = writer.prepareStatement("UPDATE balances SET charged = charged + ?, "
                + "credited = credited + ? WHERE user_name = ?");
             PreparedStatement insert = writer.prepareStatement("INSERT INTO balances (charged, credited, user_name) "
                     + "VALUES (?, ?, ?)")) {
            for (Map.Entry<String, double[]> b : balances.entrySet()) {
                for (PreparedStatement s : List.of(add, insert)) {
                    s.setDouble(1, b.getValue()[0]);
                    s.setDouble(2, b.getValue()[1]);
                    s.setString(3, b.getKey());
                    if (s.executeUpdate() > 0) {
                        break;
                    }
                }
            }
        }
    }

    /** Binds {@code row}'s columns, priced; returns the credits it charges and credits. */
    private double[] bind(PreparedStatement s, Usage row) throws SQLException {
        PriceTable prices = book.inForce(row.intervalStart());
        double charged = switch (row.kind()) {
            case ACCEPTED -> prices.credits(PriceTable.Kind.CONSUMED, row);
            case DUPLICATE -> policy.chargeDuplicates() ? prices.credits(PriceTable.Kind.CONSUMED, row) : 0;
            case OFFERED -> 0;
        };
        double credited = switch (row.kind()) {
            case ACCEPTED -> prices.credits(PriceTable.Kind.CONTRIBUTED, row);
            case DUPLICATE -> policy.creditDuplicates() ? prices.credits(PriceTable.Kind.CONTRIBUTED, row) : 0;
            case OFFERED -> prices.credits(PriceTable.Kind.OFFERED, row);
        };
        boolean offered = row.kind() == Usage.Kind.OFFERED;
        s.setLong(1, row.kind() == Usage.Kind.ACCEPTED ? row.executions() : 0);
        s.setLong(2, row.kind() == Usage.Kind.DUPLICATE ? row.executions() : 0);
        s.setLong(3, offered ? 0 : row.cpuNanos());
        s.setLong(4, offered ? row.cpuNanos() : 0);
        s.setLong(5, row.wallNanos());
        s.setLong(6, row.bytesIn());
        s.setLong(7, row.bytesOut());
        s.setLong(8, row.messages());
        s.setDouble(9, charged);
        s.setDouble(10, credited);
        s.setLong(11, row.intervalStart());
        s.setString(12, row.consumer());
        s.setLong(13, row.computation());
        s.setString(14, row.producer());
        s.setString(15, row.contributor());
        s.setString(16, row.hostType());
        return new double[] {charged, credited};
    }

    /** The prices in force now. */
    public synchronized PriceBook.Version prices() {
        return book.current();
    }

    /**
     * Loads {@code table} as a new version of the prices, in force from the start of the first price interval at or
     * after {@code from} that has not begun: usage already recorded, or being recorded now, keeps its prices. The
     * first version loaded before any usage is recorded is in force from the beginning.
     */
    public synchronized PriceBook.Version loadPrices(PriceTable table, String by, Instant from) throws SQLException {
        Instant start;
        if (book.current().number() == 0 && size()[0] == 0) {
            start = Instant.EPOCH;
        } else {
            long next = Usage.intervalOf(System.currentTimeMillis()) + Usage.INTERVAL_MILLIS;
            long asked = Usage.intervalOf(from.toEpochMilli() + Usage.INTERVAL_MILLIS - 1);
            start = Instant.ofEpochMilli(Math.max(next, asked));
        }
        return book.add(writer, table, by, start);
    }

    /** Credits charged to and credited to every user (or {@code onlyUser}), and their difference. */
    public List<Report.Balance> balances(String onlyUser) throws SQLException {
        List<Report.Balance> out = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement("SELECT user_name, charged, "
                + "credited FROM balances" + (onlyUser == null ? "" : " WHERE user_name = ?") + " ORDER BY user_name")) {
            if (onlyUser != null) {
                s.setString(1, onlyUser);
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new Report.Balance(r.getString(1), r.getDouble(2), r.getDouble(3)));
                }
            }
        }
        if (onlyUser != null && out.isEmpty()) {
            out.add(new Report.Balance(onlyUser, 0, 0));
        }
        return out;
    }

    /**
     * Usage from {@code from} (inclusive) to {@code to} (exclusive), a row per value of {@code by}: all of it, or
     * only where {@code onlyUser} consumed ({@code side} consumer), contributed, or either.
     */
    public List<Report.Row> report(Instant from, Instant to, Report.By by, String onlyUser, Report.Side side)
            throws SQLException {
        String key = by.grouping();
        String sql = "SELECT " + key + ", SUM(executions), SUM(duplicates), SUM(cpu_nanos), SUM(offered_nanos), "
                + "SUM(wall_nanos), SUM(bytes_in), SUM(bytes_out), SUM(messages), SUM(charged), SUM(credited) "
                + "FROM usage_rows WHERE interval_start >= ? AND interval_start < ?"
                + (onlyUser == null ? "" : " AND " + side.condition())
                + " GROUP BY " + key + " ORDER BY " + key;
        List<Report.Row> rows = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, from.toEpochMilli());
            s.setLong(2, to.toEpochMilli());
            if (onlyUser != null) {
                s.setString(3, onlyUser);
                if (side == Report.Side.EITHER) {
                    s.setString(4, onlyUser);
                }
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String k = by == Report.By.COMPUTATION ? Long.toHexString(r.getLong(1)) : r.getString(1);
                    rows.add(new Report.Row(k, r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5),
                            r.getLong(6), r.getLong(7), r.getLong(8), r.getLong(9), r.getDouble(10),
                            r.getDouble(11)));
                }
            }
        }
        return rows;
    }

    /** Credits charged and credited per price interval from {@code from} to {@code to}, for a chart. */
    public List<Report.Point> series(Instant from, Instant to, String onlyUser) throws SQLException {
        String sql = "SELECT interval_start, SUM(" + (onlyUser == null ? "charged" : "CASE WHEN consumer = ? THEN "
                + "charged ELSE 0 END") + "), SUM(" + (onlyUser == null ? "credited" : "CASE WHEN contributor = ? "
                + "THEN credited ELSE 0 END") + ") FROM usage_rows WHERE interval_start >= ? AND interval_start < ? "
                + "GROUP BY interval_start ORDER BY interval_start";
        List<Report.Point> points = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            if (onlyUser != null) {
                s.setString(i++, onlyUser);
                s.setString(i++, onlyUser);
            }
            s.setLong(i++, from.toEpochMilli());
            s.setLong(i, to.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    points.add(new Report.Point(r.getLong(1), r.getDouble(2), r.getDouble(3)));
                }
            }
        }
        return points;
    }

    /** How many usage rows and batches are recorded. */
    public long[] size() throws SQLException {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(
                "SELECT (SELECT COUNT(*) FROM usage_rows), (SELECT COUNT(*) FROM batches)");
             ResultSet r = s.executeQuery()) {
            r.next();
            return new long[] {r.getLong(1), r.getLong(2)};
        }
    }

    @Override
    public synchronized void close() throws SQLException {
        writer.close();
    }
}
