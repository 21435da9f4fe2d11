package org.cx.producer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Freezes and thaws worker processes ({@code SIGSTOP}, {@code SIGCONT}) and reads their resident memory. The JDK
 * sends no other signal than the ones that end a process, so a signal is one {@code kill} for all the processes.
 */
public final class ProcessSignals {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessSignals.class);
    private static final long PAGE_BYTES = 4096;

    private ProcessSignals() {
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}) to {@code pids}; ones that are gone are skipped. */
    static void send(String signal, long[] pids) {
        if (pids.length == 0) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-s", signal));
        for (long pid : pids) {
            command.add(Long.toString(pid));
        }
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            LOG.warn("cannot send SIG{} to worker processes: {}", signal, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Resident memory of {@code pids}, summed, from {@code /proc/PID/statm}; processes gone count nothing. */
    public static long residentBytes(long... pids) {
        long total = 0;
        for (long pid : pids) {
            try {
                String[] f = Files.readString(Path.of("/proc", Long.toString(pid), "statm")).trim().split(" ");
                total += Long.parseLong(f[1]) * PAGE_BYTES;
            } catch (IOException | RuntimeException e) {
                // gone, or not Linux
            }
        }
        return total;
    }
}
