package org.cx.accounting;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Every version of the prices, in the order they came into force: usage is priced by the version in force at the
 * start of its interval, so loading new prices never changes what was recorded under old ones.
 */
public final class PriceBook {
    /** A version of the prices: version 0 (nothing loaded) is free. */
    public record Version(int number, Instant inForceFrom, String loadedBy, PriceTable table) {
    }

    private static final Version NONE = new Version(0, Instant.EPOCH, "", PriceTable.FREE);

    private final List<Version> versions = new ArrayList<>();

    private PriceBook() {
    }

    static PriceBook load(Connection c) throws SQLException {
        PriceBook book = new PriceBook();
        try (PreparedStatement s = c.prepareStatement("SELECT version, in_force_from, loaded_by, source "
                + "FROM price_versions ORDER BY in_force_from, version"); ResultSet r = s.executeQuery()) {
            while (r.next()) {
                try {
                    book.versions.add(new Version(r.getInt(1), Instant.ofEpochMilli(r.getLong(2)), r.getString(3),
                            PriceTable.parse(r.getString(4))));
                } catch (PriceTable.InvalidPricesException e) {
                    throw new SQLException("price version " + r.getInt(1) + " in the database does not parse: "
                            + e.getMessage(), e);
                }
            }
        }
        c.commit();
        return book;
    }

    /** The version in force at {@code epochMillis}. */
    PriceTable inForce(long epochMillis) {
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (versions.get(i).inForceFrom().toEpochMilli() <= epochMillis) {
                return versions.get(i).table();
            }
        }
        return NONE.table();
    }

    /** The version in force now. */
    Version current() {
        long now = System.currentTimeMillis();
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (versions.get(i).inForceFrom().toEpochMilli() <= now) {
                return versions.get(i);
            }
        }
        return NONE;
    }

    /** Adds {@code table} as the next version, in force from {@code from}, committed before it returns. */
    Version add(Connection c, PriceTable table, String by, Instant from) throws SQLException {
        int number = versions.stream().mapToInt(Version::number).max().orElse(0) + 1;
        try (PreparedStatement s = c.prepareStatement("INSERT INTO price_versions (version, in_force_from, "
                + "loaded_by, source) VALUES (?, ?, ?, ?)")) {
            s.setInt(1, number);
            s.setLong(2, from.toEpochMilli());
            s.setString(3, by);
            s.setString(4, table.source());
            s.executeUpdate();
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        }
        Version v = new Version(number, from, by, table);
        versions.add(v);
        versions.sort(java.util.Comparator.comparing(Version::inForceFrom).thenComparing(Version::number));
        return v;
    }
}
