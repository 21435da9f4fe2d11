package org.cx.producer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner as this machine shows them, on Linux:
 * <ul>
 *   <li>input: the idle hint of logind's graphical sessions ({@code loginctl}), the X11 screensaver's idle time
 *       ({@code xprintidle}, where {@code DISPLAY} is set and it is installed), and the last read of a terminal
 *       (the access time of {@code /dev/pts/*} and of the consoles {@code /dev/tty1..9}, as {@code w} shows it); none of these: no
 *       desktop session;</li>
 *   <li>the owner's processes: the machine's busy time from {@code /proc/uptime} less what task code and this
 *       producer used, over the time since the last sample.</li>
 * </ul>
 * The programs and the terminals are asked at most once a second; {@code /proc/uptime} is read at each sample.
 */
final class MachineIdle implements IdleSource {
    private static final Logger LOG = LoggerFactory.getLogger(MachineIdle.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long ASK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier ourCpuNanos;
    private final int processors = Runtime.getRuntime().availableProcessors();
    private boolean loginctlWorks = true;
    private boolean xprintidleWorks = System.getenv("DISPLAY") != null;
    private long askedAt = Long.MIN_VALUE;
    private Duration desktopInput;
    private long lastNanos = -1;
    private long lastBusy;
    private long lastOurs;
    private double ownerCpu;

    /** @param ourCpuNanos CPU used so far by task code and this producer (the rest is the owner's) */
    MachineIdle(LongSupplier ourCpuNanos) {
        this.ourCpuNanos = ourCpuNanos;
    }

    @Override
    public RunPolicy.Sample sample(long nowNanos) {
        if (nowNanos - askedAt >= ASK_EVERY_NANOS) {
            askedAt = nowNanos;
            desktopInput = min(desktopInput(), terminalInput());
        }
        Duration input = desktopInput;
        long busy = busyNanos();
        long ours = ourCpuNanos.getAsLong();
        if (lastNanos >= 0 && busy >= 0 && nowNanos > lastNanos) {
            double owner = (busy - lastBusy) - Math.max(0, ours - lastOurs);
            ownerCpu = Math.max(0, Math.min(1, owner / ((double) (nowNanos - lastNanos) * processors)));
        }
        lastNanos = nowNanos;
        lastBusy = busy;
        lastOurs = ours;
        return new RunPolicy.Sample(input, ownerCpu);
    }

    private static Duration min(Duration a, Duration b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }

    /** Time since input in a graphical session, from logind or X11; null if there is none. */
    private Duration desktopInput() {
        Duration found = null;
        if (loginctlWorks) {
            try {
                found = logindInput(run("loginctl", "list-sessions", "-o", "json"), this::sessionIdle);
            } catch (IOException e) {
                loginctlWorks = false; // no logind here (a container, or not Linux): not asked again
                LOG.debug("logind's idle hints are not available: {}", e.getMessage());
            }
        }
        if (xprintidleWorks) {
            try {
                found = min(found, Duration.ofMillis(Long.parseLong(run("xprintidle").trim())));
            } catch (IOException | NumberFormatException e) {
                xprintidleWorks = false;
                LOG.debug("the X11 screensaver's idle time is not available: {}", e.getMessage());
            }
        }
        return found;
    }

    /** One session's {@code loginctl show-session} properties. */
    private String sessionIdle(String session) throws IOException {
        return run("loginctl", "show-session", session, "-p", "Type", "-p", "IdleHint", "-p", "IdleSinceHint");
    }

    /** The time since input in the graphical sessions {@code sessionsJson} lists, asking each; null if none. */
    static Duration logindInput(String sessionsJson, SessionQuery query) throws IOException {
        Duration found = null;
        for (JsonNode s : JSON.readTree(sessionsJson)) {
            String props = query.properties(s.path("session").asText());
            Duration d = sessionInput(props, Instant.now());
            found = min(found, d);
        }
        return found;
    }

    /** What one session's properties say: null if it is not graphical; zero if it is not idle. */
    static Duration sessionInput(String properties, Instant now) {
        String type = "";
        boolean idle = false;
        long sinceMicros = 0;
        for (String line : properties.split("\n")) {
            String[] kv = line.split("=", 2);
            if (kv.length < 2) {
                continue;
            }
            switch (kv[0]) {
                case "Type" -> type = kv[1].trim();
                case "IdleHint" -> idle = kv[1].trim().equals("yes");
                case "IdleSinceHint" -> sinceMicros = Long.parseLong(kv[1].trim());
                default -> {
                }
            }
        }
        if (!List.of("x11", "wayland", "mir").contains(type)) {
            return null;
        }
        if (!idle || sinceMicros == 0) {
            return Duration.ZERO;
        }
        Duration d = Duration.between(Instant.EPOCH.plus(sinceMicros, java.time.temporal.ChronoUnit.MICROS), now);
        return d.isNegative() ? Duration.ZERO : d;
    }

    /** Asks for one session's properties. */
    @FunctionalInterface
    interface SessionQuery {
        String properties(String session) throws IOException;
    }

    /** Time since a terminal was last read (a key typed in it); null if there is none. */
    private static Duration terminalInput() {
        List<Path> ttys = new ArrayList<>();
        for (String[] glob : new String[][] {{"/dev/pts", "[0-9]*"}, {"/dev", "tty[1-9]"}}) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(Path.of(glob[0]), glob[1])) {
                s.forEach(ttys::add);
            } catch (IOException e) {
                // no such directory here
            }
        }
        long latest = 0;
        for (Path tty : ttys) {
            try {
                latest = Math.max(latest, Files.readAttributes(tty, BasicFileAttributes.class).lastAccessTime()
                        .toMillis());
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        // A virtual console nobody logged into keeps the time it was made: only ones read since boot count.
        return latest <= bootMillis() ? null : Duration.ofMillis(Math.max(0, System.currentTimeMillis() - latest));
    }

    private static long bootMillis() {
        try {
            double up = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return System.currentTimeMillis() - (long) (up * 1000) + 60_000; // a minute for the boot itself
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The machine's busy time so far: its processors' time since boot less their idle time, from
     * {@code /proc/uptime} (two numbers; {@code /proc/stat} would cost the kernel a line per interrupt); -1 if it
     * cannot be read.
     */
    private long busyNanos() {
        try {
            return busyNanos(Files.readString(Path.of("/proc/uptime")), processors);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** From {@code /proc/uptime}'s "seconds-up idle-seconds-of-all-processors" on {@code processors}. */
    static long busyNanos(String uptime, int processors) {
        String[] f = uptime.trim().split("\\s+");
        double busy = Double.parseDouble(f[0]) * processors - Double.parseDouble(f[1]);
        return (long) (Math.max(0, busy) * 1e9);
    }

    private static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed: "
                        + new String(out, StandardCharsets.UTF_8).trim());
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            p.destroy();
        }
    }
}
