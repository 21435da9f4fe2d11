package org.cx.producer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A process's CPU time, cheaply: on Linux one read of {@code /proc/PID/stat} (user and system time, its own and that
 * of children it has waited for); elsewhere the JDK's {@link ProcessHandle.Info}, which reads more.
 */
public final class ProcessCpu {
    /** Clock ticks per second of {@code /proc} times: 100 on every Linux this runs on ({@code getconf CLK_TCK}). */
    private static final long TICKS_PER_SECOND = 100;
    private static final boolean PROC = Files.isReadable(Path.of("/proc/self/stat"));

    private ProcessCpu() {
    }

    /** Whether process {@code pid} is stopped ({@code SIGSTOP}: state {@code T} in {@code /proc/PID/stat}). */
    public static boolean stopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The name of process {@code pid}'s program ({@code comm} in {@code /proc/PID/stat}), or null if unknown. */
    public static String name(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** CPU nanoseconds used by process {@code pid} so far, or -1 if there is no such process. */
    public static long nanos(long pid) {
        if (!PROC) {
            return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos)
                    .orElse(-1L);
        }
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return -1;
        }
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so fields are counted after the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }
}
