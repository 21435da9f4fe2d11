package org.cx.wire;

/**
 * Usage of the exchange over one price interval, for one kind, consumer, computation and producer: what task
 * servers meter and the accounting service records (adding rows of the same key).
 *
 * @param intervalStart start of the price interval, in epoch milliseconds (a multiple of {@link #INTERVAL_MILLIS})
 * @param kind          what was measured
 * @param consumer      the computation's owner (empty for {@link Kind#OFFERED})
 * @param computation   the computation (0 for {@link Kind#OFFERED})
 * @param producer      the producer's name
 * @param contributor   the producer's owner
 * @param hostType      the producer's host type ({@link #hostType})
 * @param executions    task executions
 * @param cpuNanos      CPU time the executions took on the producer (for {@link Kind#OFFERED}: idle core time)
 * @param wallNanos     wall-clock time the executions took
 * @param bytesIn       bytes of the tasks and their inputs
 * @param bytesOut      bytes of the tasks' effects: the tasks they stored and the values they sent
 * @param messages      tasks stored and values sent by the executions
 */
public record Usage(long intervalStart, Kind kind, String consumer, long computation, String producer,
                    String contributor, String hostType, long executions, long cpuNanos, long wallNanos,
                    long bytesIn, long bytesOut, long messages) {

    /** The price interval: usage is aggregated, and priced, per interval of this length. */
    public static final long INTERVAL_MILLIS = 5 * 60_000L;

    /** What a row measures. */
    public enum Kind {
        /** The execution of a task whose effects were applied (the first to complete). */
        ACCEPTED,
        /** Another execution of a task (eager scheduling ran it twice): its effects were discarded. */
        DUPLICATE,
        /** Capacity a producer offered that no task used. */
        OFFERED;

        /** Its name in files and tables. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The kind named {@code label}; IllegalArgumentException naming the kinds if none is. */
        public static Kind of(String label) {
            for (Kind k : values()) {
                if (k.label().equals(label)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("no kind of usage '" + label + "' (accepted, duplicate or offered)");
        }
    }

    /** The start of the price interval that {@code epochMillis} falls in. */
    public static long intervalOf(long epochMillis) {
        return epochMillis - Math.floorMod(epochMillis, INTERVAL_MILLIS);
    }

    /** The host type of a producer with {@code workers} workers: prices may differ by it. */
    public static String hostType(int workers) {
        return "c" + workers;
    }

    /** This row's key (all but the measures). */
    public java.util.List<Object> key() {
        return java.util.List.of(intervalStart, kind, consumer, computation, producer, contributor, hostType);
    }

    /** This row with {@code other}'s measures added (the same key). */
    public Usage plus(Usage other) {
        return new Usage(intervalStart, kind, consumer, computation, producer, contributor, hostType,
                executions + other.executions, cpuNanos + other.cpuNanos, wallNanos + other.wallNanos,
                bytesIn + other.bytesIn, bytesOut + other.bytesOut, messages + other.messages);
    }
}
