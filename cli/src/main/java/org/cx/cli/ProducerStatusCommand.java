package org.cx.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx producer status}: what the producers of this machine do, as their owner sees it. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows what this machine's producers do: running, idle (no tasks), suspended (and why) or "
                + "waiting for a server; the cap in force; tasks run and CPU used today.",
            "Reads the status each producer writes when it changes and every 10 s (see 'cx producer --state-dir')."})
final class ProducerStatusCommand extends Printing implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A status older than this, of a process still alive, is of a producer that does not answer. */
    private static final Duration STALE = Duration.ofSeconds(60);

    @Option(names = "--name", paramLabel = "NAME", description = "Only the producer of this name.")
    String name;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Only the producer that writes its status here (its --state-dir).")
    Path stateDir;

    @Option(names = "--json", description = "Print each status as the producer wrote it, one JSON object per line.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<Path> dirs = new ArrayList<>();
        if (stateDir != null) {
            dirs.add(stateDir);
        } else if (name != null) {
            dirs.add(ProducerCommand.defaultStateDir(name));
        } else {
            Path all = ProducerCommand.defaultStateDir("x").getParent();
            if (Files.isDirectory(all)) {
                try (Stream<Path> s = Files.list(all)) {
                    s.sorted().forEach(dirs::add);
                }
            }
        }
        int shown = 0;
        for (Path dir : dirs) {
            Path file = dir.resolve("status.json");
            if (!Files.exists(file)) {
                continue;
            }
            JsonNode s = read(file);
            if (json) {
                out().println(JSON.writeValueAsString(s));
            } else {
                describe(s);
            }
            shown++;
        }
        if (shown == 0) {
            err().println("cx producer status: no producer has written a status " + (dirs.size() == 1 ? "in "
                    + dirs.get(0) : "under " + ProducerCommand.defaultStateDir("x").getParent())
                    + "; start one with 'cx producer --server HOST:PORT' (or give its --state-dir)");
            return 1;
        }
        return 0;
    }

    private static JsonNode read(Path file) throws IOException {
        try {
            return JSON.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(file + " is not a producer's status: " + e.getOriginalMessage());
        }
    }

    private void describe(JsonNode s) {
        String producer = "producer '" + s.path("name").asText() + "' (pid " + s.path("pid").asLong() + ")";
        Instant updated = Instant.parse(s.path("updated").asText(Instant.EPOCH.toString()));
        boolean alive = ProcessHandle.of(s.path("pid").asLong()).map(ProcessHandle::isAlive).orElse(false);
        String state = s.path("state").asText();
        if (!alive || state.equals("stopped")) {
            out().println(producer + ": not running (last status " + updated + ")");
        } else {
            Duration age = Duration.between(updated, Instant.now());
            out().println(producer + ": " + doing(s) + (age.compareTo(STALE) > 0 ? " (but its status is "
                    + age.toSeconds() + " s old: is it stuck?)" : ""));
        }
        out().println("  cap in force: cpu " + s.path("cpuCap").asText() + ", memory " + s.path("memoryCap")
                .asText() + "; " + s.path("openWorkers").asInt() + " of " + s.path("workers").asInt()
                + " workers open; runs " + s.path("runWhen").asText()
                + (s.path("thermostat").asText().isEmpty() ? "" : "; thermostat " + s.path("thermostat").asText()));
        if (s.has("thermostatProblem")) {
            out().println("  the thermostat file is refused, so the caps before it stay: "
                    + s.path("thermostatProblem").asText());
        }
        out().println("  today: " + s.path("tasksToday").asLong() + " tasks, " + s.path("cpuSecondsToday").asDouble()
                + " CPU seconds of task code");
    }

    /** Running, idle, suspended or waiting, in words. */
    private static String doing(JsonNode s) {
        if (s.path("state").asText().equals("paused")) {
            return "suspended since " + s.path("since").asText() + ": " + s.path("why").asText();
        }
        if (s.path("server").asText().isEmpty()) {
            return "waiting for a server";
        }
        String where = " (attached to " + s.path("server").asText() + ")";
        int busy = s.path("busyWorkers").asInt();
        return busy == 0 ? "idle: no tasks to run" + where : "running: " + busy + " worker" + (busy == 1 ? "" : "s")
                + " busy" + (s.path("state").asText().equals("capped") ? ", " + s.path("why").asText() : "") + where;
    }
}
