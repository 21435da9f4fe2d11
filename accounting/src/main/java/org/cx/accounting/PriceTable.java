package org.cx.accounting;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.cx.wire.Usage;

/**
 * A table of prices, as a prices file gives it: one line per price, in columns
 * {@code kind host-type hours per-cpu-hour per-gib}, where
 * <ul>
 *   <li>{@code kind} is {@code consumed} (charged to a computation's owner), {@code contributed} (credited to a
 *       producer's owner for what ran) or {@code offered} (credited for capacity offered and not used);</li>
 *   <li>{@code host-type} is a producer's host type ({@code c8}: 8 workers) or a pattern of them ({@code *},
 *       {@code c*});</li>
 *   <li>{@code hours} is a band of the day in UTC, {@code 0-24} or {@code 8-18} (from the first hour to the last,
 *       exclusive);</li>
 *   <li>{@code per-cpu-hour} and {@code per-gib} are credits per hour of CPU time (offered: of idle core time) and
 *       per GiB of task bytes in and out.</li>
 * </ul>
 * Blank lines and text after {@code #} are ignored. Where several lines match, the last one wins: write general
 * prices first and exceptions after. A kind no line matches is free.
 */
public final class PriceTable {
    /** The columns, as a prices file's header comment names them. */
    public static final String HEADER = "# kind         host-type  hours  per-cpu-hour  per-gib";
    private static final Pattern HOST_TYPE = Pattern.compile("[A-Za-z0-9*?._-]{1,64}");
    private static final Pattern HOURS = Pattern.compile("(\\d{1,2})-(\\d{1,2})");
    private static final double NANOS_PER_HOUR = 3600e9;
    private static final double BYTES_PER_GIB = 1L << 30;

    /** The table in which everything is free: in force until prices are loaded. */
    public static final PriceTable FREE = new PriceTable(List.of(), "");

    /** What a price is for. */
    public enum Kind {
        CONSUMED, CONTRIBUTED, OFFERED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One line of the table. */
    public record Price(Kind kind, String hostType, int fromHour, int toHour, double perCpuHour, double perGib) {

        String line() {
            return String.format(Locale.ROOT, "%-13s  %-9s  %-5s  %12s  %7s", kind.label(), hostType,
                    fromHour + "-" + toHour, plain(perCpuHour), plain(perGib));
        }
    }

    /** A prices file with errors: each with its line and reason. */
    public static final class InvalidPricesException extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient List<String> errors;

        InvalidPricesException(List<String> errors) {
            super("the prices file has " + errors.size() + (errors.size() == 1 ? " error" : " errors")
                    + "; the prices in force stay:\n  " + String.join("\n  ", errors));
            this.errors = List.copyOf(errors);
        }

        public List<String> errors() {
            return errors;
        }
    }

    private final List<Price> prices;
    /** Each price's host-type pattern, compiled once: every row recorded is priced. */
    private final List<Pattern> hostTypes;
    private final String source;

    private PriceTable(List<Price> prices, String source) {
        this.prices = List.copyOf(prices);
        this.hostTypes = prices.stream().map(p -> glob(p.hostType())).toList();
        this.source = source;
    }

    /** Parses a prices file; every error is reported, each with its line number and reason. */
    public static PriceTable parse(String text) throws InvalidPricesException {
        List<Price> prices = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (content.isEmpty()) {
                continue;
            }
            try {
                prices.add(price(content.split("\\s+")));
            } catch (IllegalArgumentException e) {
                errors.add("line " + (i + 1) + ": " + e.getMessage() + " (in '" + line.trim() + "')");
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidPricesException(errors);
        }
        return new PriceTable(prices, text);
    }

    private static Price price(String[] f) {
        if (f.length != 5) {
            throw new IllegalArgumentException("expected 5 columns (kind host-type hours per-cpu-hour per-gib), found "
                    + f.length);
        }
        Kind kind;
        try {
            kind = Kind.valueOf(f[0].toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown kind '" + f[0] + "': consumed, contributed or offered");
        }
        if (!HOST_TYPE.matcher(f[1]).matches()) {
            throw new IllegalArgumentException("host type '" + f[1] + "' is not a host type or pattern (c8, c*, *)");
        }
        var hours = HOURS.matcher(f[2]);
        if (!hours.matches()) {
            throw new IllegalArgumentException("hours '" + f[2] + "' are not a band like 0-24 or 8-18");
        }
        int from = Integer.parseInt(hours.group(1));
        int to = Integer.parseInt(hours.group(2));
        if (from >= to || to > 24) {
            throw new IllegalArgumentException("hours " + f[2] + " are no band of the day: the first must be below "
                    + "the last, and the last at most 24");
        }
        return new Price(kind, f[1], from, to, amount(f[3], "per-cpu-hour"), amount(f[4], "per-gib"));
    }

    private static double amount(String text, String column) {
        double v;
        try {
            v = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + text + "' is not a number");
        }
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(column + " " + text + " must be a finite number of credits, not "
                    + "negative");
        }
        return v;
    }

    private static Pattern glob(String hostType) {
        return Pattern.compile(hostType.replace(".", "\\.").replace("?", ".").replace("*", ".*"));
    }

    private static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** The price of {@code kind} for a producer of {@code hostType} at {@code when}; null if free. */
    public Price price(Kind kind, String hostType, Instant when) {
        int hour = when.atZone(ZoneOffset.UTC).getHour();
        Price found = null;
        for (int i = 0; i < prices.size(); i++) {
            Price p = prices.get(i);
            if (p.kind() == kind && hour >= p.fromHour() && hour < p.toHour()
                    && hostTypes.get(i).matcher(hostType).matches()) {
                found = p; // the last matching line wins
            }
        }
        return found;
    }

    /** The credits {@code kind} costs for {@code row}, at the prices of the start of its interval. */
    public double credits(Kind kind, Usage row) {
        Price p = price(kind, row.hostType(), Instant.ofEpochMilli(row.intervalStart()));
        if (p == null) {
            return 0;
        }
        return p.perCpuHour() * row.cpuNanos() / NANOS_PER_HOUR
                + p.perGib() * (row.bytesIn() + row.bytesOut()) / BYTES_PER_GIB;
    }

    public List<Price> prices() {
        return prices;
    }

    /** The file as it was loaded. */
    public String source() {
        return source;
    }

    /** The table as a prices file, with its header. */
    public String format() {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        prices.forEach(p -> b.append(p.line()).append('\n'));
        return b.toString();
    }
}
