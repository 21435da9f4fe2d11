package org.cx.producer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.DayOfWeek;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a producer's owner lets task code use, by time of the week: a share of the machine's processors and an amount
 * of memory, outside any interval and within each. Where intervals overlap, the one listed last wins for what it sets.
 * Immutable; read from and written to a small JSON file (see {@code docs/operations.md}):
 * <pre>{@code
 * {"cpu": "100%", "memory": "unlimited",
 *  "intervals": [{"days": "mon-fri", "from": "09:00", "to": "17:00", "cpu": "25%", "memory": "2G"}]}
 * }</pre>
 */
public final class Thermostat {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** No caps at any time. */
    public static final Thermostat OPEN = new Thermostat(1.0, Memory.UNLIMITED, List.of());

    private final double cpu;
    private final Memory memory;
    private final List<Interval> intervals;

    public Thermostat(double cpu, Memory memory, List<Interval> intervals) {
        this.cpu = checkCpu(cpu);
        this.memory = memory;
        this.intervals = List.copyOf(intervals);
    }

    /** The caps in force at {@code time} (local time of the producer's machine). */
    public Cap capAt(LocalDateTime time) {
        double c = cpu;
        Memory m = memory;
        for (Interval i : intervals) {
            if (i.covers(time)) {
                c = i.cpu() != null ? i.cpu() : c;
                m = i.memory() != null ? i.memory() : m;
            }
        }
        return new Cap(c, m);
    }

    /** No task code at all outside the intervals (a producer that runs only on a schedule). */
    public Thermostat closedOutsideIntervals() {
        return new Thermostat(0, memory, intervals);
    }

    public double cpu() {
        return cpu;
    }

    public Memory memory() {
        return memory;
    }

    public List<Interval> intervals() {
        return intervals;
    }

    /** The same, with the caps outside intervals set (null: unchanged). */
    public Thermostat withDefault(Double newCpu, Memory newMemory) {
        return new Thermostat(newCpu != null ? newCpu : cpu, newMemory != null ? newMemory : memory, intervals);
    }

    /** The same, with {@code interval} in place of one of the same days and times, or added last. */
    public Thermostat with(Interval interval) {
        List<Interval> next = new ArrayList<>(intervals);
        int at = indexOf(interval.days(), interval.from(), interval.to());
        if (at >= 0) {
            next.set(at, interval);
        } else {
            next.add(interval);
        }
        return new Thermostat(cpu, memory, next);
    }

    /** The same without the interval of these days and times; unchanged if there is none. */
    public Thermostat without(Set<DayOfWeek> days, LocalTime from, LocalTime to) {
        List<Interval> next = new ArrayList<>(intervals);
        int at = indexOf(days, from, to);
        if (at >= 0) {
            next.remove(at);
        }
        return new Thermostat(cpu, memory, next);
    }

    private int indexOf(Set<DayOfWeek> days, LocalTime from, LocalTime to) {
        for (int i = 0; i < intervals.size(); i++) {
            Interval x = intervals.get(i);
            if (x.days().equals(days) && x.from().equals(from) && x.to().equals(to)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A share of processors and an amount of memory.
     *
     * @param cpu share of all the machine's processors, 0 (none: task code does not run) to 1
     */
    public record Cap(double cpu, Memory memory) {
        public static final Cap NONE = new Cap(1.0, Memory.UNLIMITED);

        public Cap {
            checkCpu(cpu);
        }

        @Override
        public String toString() {
            return "cpu " + percent(cpu) + ", memory " + memory;
        }
    }

    /**
     * Days of the week and a time of day from {@code from} to {@code to} (over midnight into the next day if
     * {@code to} is not after {@code from}; the whole day if they are equal), and the caps then; null: as outside.
     */
    public record Interval(Set<DayOfWeek> days, LocalTime from, LocalTime to, Double cpu, Memory memory) {
        public Interval {
            if (days.isEmpty()) {
                throw new IllegalArgumentException("an interval needs at least one day");
            }
            days = Set.copyOf(days);
            if (cpu != null) {
                checkCpu(cpu);
            }
        }

        boolean covers(LocalDateTime t) {
            LocalTime time = t.toLocalTime();
            DayOfWeek day = t.getDayOfWeek();
            if (from.equals(to)) {
                return days.contains(day);
            }
            if (from.isBefore(to)) {
                return days.contains(day) && !time.isBefore(from) && time.isBefore(to);
            }
            return days.contains(day) && !time.isBefore(from) || days.contains(day.minus(1)) && time.isBefore(to);
        }

        @Override
        public String toString() {
            return formatDays(days) + " " + from + "-" + to + ": cpu " + (cpu == null ? "as outside" : percent(cpu))
                    + ", memory " + (memory == null ? "as outside" : memory);
        }
    }

    /**
     * An amount of memory: bytes, a share of the machine's memory, or no limit.
     *
     * @param bytes    the amount, if given in bytes (else 0)
     * @param fraction the share of physical memory, if given so (else 0)
     */
    public record Memory(long bytes, double fraction) {
        public static final Memory UNLIMITED = new Memory(0, 0);
        private static final java.util.regex.Pattern AMOUNT =
                java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(?:i?b)?");

        public Memory {
            if (bytes < 0 || fraction < 0 || fraction > 1 || bytes > 0 && fraction > 0) {
                throw new IllegalArgumentException("memory: bytes or a share of 0..100 %, got " + bytes + " and "
                        + fraction);
            }
        }

        /** Reads {@code 2G}, {@code 512M}, {@code 1048576}, {@code 50%} or {@code unlimited}. */
        public static Memory parse(String text) {
            String s = text.trim().toLowerCase(Locale.ROOT);
            if (s.equals("unlimited") || s.equals("none") || s.equals("100%")) {
                return UNLIMITED;
            }
            try {
                if (s.endsWith("%")) {
                    double p = Double.parseDouble(s.substring(0, s.length() - 1));
                    if (p > 0 && p <= 100) {
                        return new Memory(0, p / 100);
                    }
                } else {
                    java.util.regex.Matcher m = AMOUNT.matcher(s);
                    if (m.matches()) {
                        int power = m.group(2).isEmpty() ? 0 : "kmgt".indexOf(m.group(2)) + 1; // of 1024
                        long bytes = (long) (Double.parseDouble(m.group(1)) * (1L << (10 * power)));
                        if (bytes >= 1) {
                            return new Memory(bytes, 0);
                        }
                    }
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new IllegalArgumentException("'" + text + "' is not an amount of memory: give bytes with a unit "
                    + "(512M, 2G), a share of this machine's memory (50%), or 'unlimited'");
        }

        public boolean unlimited() {
            return bytes == 0 && fraction == 0;
        }

        /** In bytes on a machine of {@code physical} bytes of memory; {@link Long#MAX_VALUE} if unlimited. */
        public long bytesOf(long physical) {
            return unlimited() ? Long.MAX_VALUE : bytes > 0 ? bytes : (long) (fraction * physical);
        }

        @Override
        public String toString() {
            if (unlimited()) {
                return "unlimited";
            }
            if (fraction > 0) {
                return percent(fraction);
            }
            for (String unit : new String[] {"T", "G", "M", "K"}) {
                long scale = 1L << (10 * ("KMGT".indexOf(unit) + 1));
                if (bytes % scale == 0) {
                    return bytes / scale + unit;
                }
            }
            return Long.toString(bytes);
        }
    }

    // ---------------------------------------------------------------- text forms

    /** Reads {@code 50%} (or {@code 0.5}) as a share of the machine's processors. */
    public static double parseCpu(String text) {
        String s = text.trim();
        try {
            double v = s.endsWith("%") ? Double.parseDouble(s.substring(0, s.length() - 1)) / 100
                    : Double.parseDouble(s);
            if (v >= 0 && v <= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("'" + text + "' is not a CPU share: give 0% to 100% of this machine's "
                + "processors, such as 50%");
    }

    /** Reads {@code mon-fri}, {@code sat,sun}, {@code mon,wed-fri} or {@code daily}. */
    public static Set<DayOfWeek> parseDays(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.equals("daily") || s.equals("all") || s.equals("*")) {
            return EnumSet.allOf(DayOfWeek.class);
        }
        EnumSet<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
        for (String part : s.split(",")) {
            String[] range = part.trim().split("-");
            if (range.length > 2) {
                throw badDays(text);
            }
            DayOfWeek first = day(range[0], text);
            DayOfWeek last = range.length == 2 ? day(range[1], text) : first;
            for (DayOfWeek d = first; ; d = d.plus(1)) { // a range may wrap: fri-mon
                days.add(d);
                if (d == last) {
                    break;
                }
            }
        }
        return days;
    }

    private static DayOfWeek day(String name, String text) {
        String n = name.trim();
        for (DayOfWeek d : DayOfWeek.values()) {
            String full = d.name().toLowerCase(Locale.ROOT);
            if (n.length() >= 3 && full.startsWith(n)) {
                return d;
            }
        }
        throw badDays(text);
    }

    private static IllegalArgumentException badDays(String text) {
        return new IllegalArgumentException("'" + text + "' are not days of the week: give names or ranges such as "
                + "mon-fri, sat,sun or daily");
    }

    /** Reads {@code 09:00} or {@code 9:30}; {@code 24:00} is midnight. */
    public static LocalTime parseTime(String text) {
        String s = text.trim();
        if (s.equals("24:00")) {
            return LocalTime.MIDNIGHT;
        }
        try {
            return LocalTime.parse(s.length() == 4 ? "0" + s : s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a time of day: give HH:MM, such as 09:00");
        }
    }

    public static String formatDays(Set<DayOfWeek> days) {
        if (days.size() == 7) {
            return "daily";
        }
        List<String> parts = new ArrayList<>();
        DayOfWeek[] all = DayOfWeek.values();
        for (int i = 0; i < all.length; i++) {
            if (!days.contains(all[i])) {
                continue;
            }
            int j = i;
            while (j + 1 < all.length && days.contains(all[j + 1])) {
                j++;
            }
            parts.add(j == i ? shortName(all[i]) : shortName(all[i]) + "-" + shortName(all[j]));
            i = j;
        }
        return String.join(",", parts);
    }

    private static String shortName(DayOfWeek d) {
        return d.name().substring(0, 3).toLowerCase(Locale.ROOT);
    }

    public static String percent(double share) {
        double p = share * 100;
        return (p == Math.rint(p) ? Long.toString(Math.round(p)) : String.format(Locale.ROOT, "%.1f", p)) + "%";
    }

    private static double checkCpu(double cpu) {
        if (!(cpu >= 0 && cpu <= 1)) {
            throw new IllegalArgumentException("a CPU share is 0..1 (0% to 100%), got " + cpu);
        }
        return cpu;
    }

    // ---------------------------------------------------------------- the file

    /** Reads the file at {@code path}; no file: {@link #OPEN}. A malformed file is refused, saying where. */
    public static Thermostat read(Path path) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(path));
        } catch (NoSuchFileException e) {
            return OPEN;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(path + " is not a thermostat file: " + e.getOriginalMessage());
        }
        try {
            if (root == null || !root.isObject()) {
                throw new IllegalArgumentException("expected a JSON object");
            }
            double cpu = root.has("cpu") ? parseCpu(root.get("cpu").asText()) : 1.0;
            Memory memory = root.has("memory") ? Memory.parse(root.get("memory").asText()) : Memory.UNLIMITED;
            List<Interval> intervals = new ArrayList<>();
            for (JsonNode i : root.path("intervals")) {
                for (String field : new String[] {"days", "from", "to"}) {
                    if (!i.hasNonNull(field)) {
                        throw new IllegalArgumentException("interval " + (intervals.size() + 1) + " has no '"
                                + field + "'");
                    }
                }
                intervals.add(new Interval(parseDays(i.get("days").asText()), parseTime(i.get("from").asText()),
                        parseTime(i.get("to").asText()), i.hasNonNull("cpu") ? parseCpu(i.get("cpu").asText())
                        : null, i.hasNonNull("memory") ? Memory.parse(i.get("memory").asText()) : null));
            }
            return new Thermostat(cpu, memory, intervals);
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": " + e.getMessage());
        }
    }

    /** Writes this to {@code path} at once (a reader sees the old file or the new one, never a part). */
    public void write(Path path) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("cpu", percent(cpu));
        root.put("memory", memory.toString());
        ArrayNode list = root.putArray("intervals");
        for (Interval i : intervals) {
            ObjectNode n = list.addObject();
            n.put("days", formatDays(i.days()));
            n.put("from", i.from().toString());
            n.put("to", i.to().toString());
            if (i.cpu() != null) {
                n.put("cpu", percent(i.cpu()));
            }
            if (i.memory() != null) {
                n.put("memory", i.memory().toString());
            }
        }
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, ".thermostat", ".tmp");
        Files.writeString(temp, JSON.writeValueAsString(root) + "\n");
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Lines for a person: the caps outside intervals, then each interval. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("outside intervals: cpu " + percent(cpu) + ", memory " + memory);
        intervals.stream().map(Interval::toString).collect(Collectors.toCollection(() -> lines));
        return lines;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Thermostat t && t.cpu == cpu && t.memory.equals(memory) && t.intervals.equals(intervals);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(cpu, memory, intervals);
    }

    @Override
    public String toString() {
        return String.join("; ", describe());
    }
}
