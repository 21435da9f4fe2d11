package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.cx.wire.BodyCodecs;
import org.cx.wire.KeptTasks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The governor's rounds with the owner played by a fake {@link IdleSource}, the time by a fixed clock, and workers
 * that are never started: what it opens, what it says, what it logs and when it gives tasks back.
 */
class GovernorTest {
    private static final long S = 1_000_000_000L;
    /** A Monday, 10:00 UTC. */
    private static final Clock MONDAY_10 = Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);
    private static final int WORKERS = 4;

    @TempDir
    Path dir;

    private final AtomicReference<RunPolicy.Sample> owner = new AtomicReference<>(RunPolicy.Sample.AWAY);
    private final AtomicInteger gaveBack = new AtomicInteger();

    private WorkerPool pool() {
        ProducerConfig config = ProducerConfig.of(null, WORKERS, null)
                .withBox(TaskBox.defaults().withIsolation(TaskBox.Isolation.IN_PROCESS));
        return new WorkerPool(config, new TaskCache(() -> { }), new KeptTasks(16),
                new BodyCodecs(getClass().getClassLoader()), c -> org.cx.fs.ActingFor.plainly(""), c -> false, new IdleLog(WORKERS),
                new TaskTimeline(WORKERS, false), new ConcurrentLinkedQueue<>(), () -> { }, new AtomicLong());
    }

    private Governor governor(WorkerPool pool, RunWhen when, Thermostat thermostat) throws IOException {
        Path file = dir.resolve("thermostat.json");
        thermostat.write(file);
        OwnerSettings settings = new OwnerSettings(when, file, Duration.ofMinutes(5), 0.25, Duration.ofMinutes(1),
                CpuCapMode.WORKERS, dir.resolve("state"));
        return new Governor("test", WORKERS, pool, settings, ours -> now -> owner.get(), new Governor.Hooks() {
            @Override
            public void giveBackCached() {
                gaveBack.incrementAndGet();
            }

            @Override
            public String server() {
                return "127.0.0.1:7070";
            }

            @Override
            public long tasksRun() {
                return 0;
            }
        }, MONDAY_10);
    }

    @Test
    void theOwnersReturnClosesTheGateAndALongPauseGivesTasksBackOnce() throws IOException {
        WorkerPool pool = pool();
        try (Governor g = governor(pool, RunWhen.IDLE, Thermostat.OPEN)) {
            g.tick(0);
            assertEquals(RunPolicy.State.RUNNING, g.status().state());
            assertEquals(WORKERS, pool.gate().openWorkers());

            owner.set(new RunPolicy.Sample(Duration.ofSeconds(3), 0)); // a key pressed 3 s ago
            g.tick(1 * S);
            assertEquals(RunPolicy.State.PAUSED, g.status().state(), g.status().why());
            assertEquals(0, pool.gate().openWorkers());
            g.tick(30 * S);
            assertEquals(0, gaveBack.get(), "not yet: the pause is shorter than its limit");
            g.tick(62 * S);
            g.tick(63 * S);
            assertEquals(1, gaveBack.get(), "once, when the pause passed a minute");

            owner.set(new RunPolicy.Sample(Duration.ofMinutes(6), 0)); // away again
            g.tick(400 * S);
            assertEquals(RunPolicy.State.RUNNING, g.status().state());
            assertEquals(WORKERS, pool.gate().openWorkers());
        }
    }

    @Test
    void aCapOpensFewerWorkersAndEachChangeIsLoggedAsOfferedCapacity() throws IOException {
        WorkerPool pool = pool();
        Thermostat office = new Thermostat(1.0, Thermostat.Memory.UNLIMITED, List.of(new Thermostat.Interval(
                Thermostat.parseDays("mon-fri"), Thermostat.parseTime("09:00"), Thermostat.parseTime("17:00"),
                0.25, null)));
        try (Governor g = governor(pool, RunWhen.ALWAYS, office)) {
            g.tick(0);
            int processors = Runtime.getRuntime().availableProcessors();
            CpuPlan expected = CpuPlan.of(0.25, processors, WORKERS, CpuCapMode.WORKERS);
            assertEquals(RunPolicy.State.CAPPED, g.status().state());
            assertEquals(expected.open(), pool.gate().openWorkers());
            assertTrue(Files.readString(dir.resolve("state").resolve(Governor.STATUS_FILE)).contains("\"capped\""));

            new Thermostat(0, Thermostat.Memory.UNLIMITED, List.of()).write(dir.resolve("thermostat.json"));
            Files.setLastModifiedTime(dir.resolve("thermostat.json"),
                    java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(5))); // seen as changed
            g.tick(S);
            assertEquals(RunPolicy.State.PAUSED, g.status().state());
            List<String> offered = Files.readAllLines(dir.resolve("state").resolve(Governor.OFFERED_LOG));
            assertEquals(2, offered.size(), String.valueOf(offered));
            assertTrue(offered.get(0).contains("\"processors\":" + 0.25 * processors), offered.get(0));
            assertTrue(offered.get(1).contains("\"processors\":0.0") && offered.get(1).contains("\"paused\""),
                    offered.get(1));
        }
    }

    @Test
    void onAScheduleNothingRunsOutsideTheIntervals() throws IOException {
        WorkerPool pool = pool();
        Thermostat evenings = new Thermostat(1.0, Thermostat.Memory.UNLIMITED, List.of(new Thermostat.Interval(
                Thermostat.parseDays("daily"), Thermostat.parseTime("18:00"), Thermostat.parseTime("08:00"),
                null, null)));
        try (Governor g = governor(pool, RunWhen.SCHEDULE, evenings)) {
            g.tick(0); // Monday 10:00
            assertEquals(RunPolicy.State.PAUSED, g.status().state());
            assertEquals("outside the schedule", g.status().why());
        }
    }
}
