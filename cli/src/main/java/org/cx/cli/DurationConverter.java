package org.cx.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a duration option: a number with a unit ({@code 500ms}, {@code 1s}, {@code 1.5s}, {@code 10m}, {@code 1h}),
 * several of them added up ({@code 1m30s}), or ISO-8601 ({@code PT10M}). Units: ns, us, ms, s, m, h, d.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.startsWith("p") || text.startsWith("-p")) {
            try {
                return nonNegative(Duration.parse(text.toUpperCase(Locale.ROOT)), value);
            } catch (java.time.format.DateTimeParseException e) {
                throw refused(value);
            }
        }
        Matcher m = PART.matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        while (end < text.length() && m.find(end) && m.start() == end) {
            total = total.plus(Duration.ofNanos(Math.round(Double.parseDouble(m.group(1)) * nanosPer(m.group(2)))));
            end = m.end();
        }
        if (end == 0 || end != text.length()) {
            throw refused(value);
        }
        return total;
    }

    private static long nanosPer(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            case "d" -> 86_400_000_000_000L;
            default -> throw new IllegalStateException("unit " + unit + " is in the pattern but not here");
        };
    }

    private static Duration nonNegative(Duration d, String value) {
        if (d.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative; a duration must be >= 0");
        }
        return d;
    }

    private static CommandLine.TypeConversionException refused(String value) {
        return new CommandLine.TypeConversionException("'" + value + "' is not a duration: write a number and a "
                + "unit (ns, us, ms, s, m, h, d), e.g. 500ms, 1s, 1m30s, or ISO-8601 such as PT10M");
    }
}
