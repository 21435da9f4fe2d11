package org.cx.fs;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Amounts of bytes as people write them: {@code 512}, {@code 64K}, {@code 50M}, {@code 1.5G} (powers of 1024). */
public final class Sizes {
    private static final Pattern AMOUNT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)(?:i?B)?",
            Pattern.CASE_INSENSITIVE);

    private Sizes() {
    }

    public static long parse(String text) {
        Matcher m = AMOUNT.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not an amount of bytes: give a number with an "
                    + "optional K, M, G or T, e.g. 50M");
        }
        String unit = m.group(2).toUpperCase(Locale.ROOT);
        int power = unit.isEmpty() ? 0 : "KMGT".indexOf(unit) + 1;
        return (long) (Double.parseDouble(m.group(1)) * (1L << (10 * power)));
    }

    /** {@code 1.5 GiB}, {@code 12 KiB}, {@code 512 B}. */
    public static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
    }
}
