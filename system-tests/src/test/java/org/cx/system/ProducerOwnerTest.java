package org.cx.system;

import static org.cx.system.Cli.cx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.api.Computation;
import org.cx.cli.Cx;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;
import org.cx.harness.LocalCluster;
import org.cx.producer.ProcessCpu;
import org.cx.producer.ProcessSignals;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.cx.testing.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machine's owner in charge of a producer ({@code cx producer} with a thermostat and a screensaver mode): task
 * code is frozen when the owner says so or comes back, runs again without a restart, and a long pause gives the
 * producer's tasks back.
 */
class ProducerOwnerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Load LEAF_20MS = Load.ofMillis(Load.Kind.SLEEP, 0, 20, 0);

    @TempDir
    Path dir;

    private ChildProcess producer(TaskServerNode server, String... options) throws IOException {
        List<String> args = new ArrayList<>(List.of("producer", "--server", "127.0.0.1:" + server.port(),
                "--workers", "2", "--name", "owned", "--no-jmx", "--task-isolation", "process",
                "--thermostat", dir.resolve("thermostat.json").toString(), "--state-dir", dir.resolve("state")
                        .toString()));
        args.addAll(List.of(options));
        ChildProcess p = ChildProcess.start("owned", Cx.class.getName(), args.toArray(String[]::new));
        p.awaitLine("attached to", WAIT);
        return p;
    }

    private void thermostat(String cpu) {
        Cli.Run set = cx("producer", "thermostat", "set", "--file", dir.resolve("thermostat.json").toString(),
                "--cpu", cpu);
        assertEquals(0, set.exit(), set.err());
    }

    private void thermostatMemory(String memory) {
        Cli.Run set = cx("producer", "thermostat", "set", "--file", dir.resolve("thermostat.json").toString(),
                "--memory", memory);
        assertEquals(0, set.exit(), set.err());
    }

    private String status() {
        Cli.Run status = cx("producer", "status", "--state-dir", dir.resolve("state").toString());
        return status.out() + status.err();
    }

    /** The worker processes (JVMs running WorkerMain) of producer process {@code producer}. */
    private static List<ProcessHandle> workers(ChildProcess producer) {
        return ProcessHandle.of(producer.pid()).orElseThrow().descendants()
                .filter(h -> commandLine(h.pid()).contains("org.cx.producer.WorkerMain")).toList();
    }

    /** From {@code /proc}: the JDK gives no arguments of other processes here. */
    private static String commandLine(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean allFrozen(ChildProcess producer) {
        List<ProcessHandle> w = workers(producer);
        return !w.isEmpty() && w.stream().allMatch(h -> ProcessCpu.stopped(h.pid()));
    }

    private static boolean noneFrozen(ChildProcess producer) {
        return workers(producer).stream().noneMatch(h -> ProcessCpu.stopped(h.pid()));
    }

    @Test
    void theThermostatFreezesTaskCodeAndAChangeLetsItRunWithoutARestart() throws Exception {
        thermostat("0%");
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer();
             ChildProcess owned = producer(cluster.server())) {
            Computation<Long> c = consumer.submit(new Fib(10, LEAF_20MS));
            Await.until("the worker processes to be frozen", WAIT, () -> allFrozen(owned));
            Await.until("the status to say so", WAIT, () -> status().contains("suspended"));
            assertTrue(status().contains("the thermostat allows no CPU now"), status());
            assertEquals(0, cluster.server().status().tasksCompleted(), "nothing ran");

            thermostat("100%");
            assertEquals(Fib.value(10), c.result().get(60, TimeUnit.SECONDS));
            assertTrue(noneFrozen(owned));
            Await.until("the status to count the tasks run", WAIT,
                    () -> status().contains("today: " + Fib.taskCount(10) + " tasks"));
            assertTrue(status().contains("idle: no tasks to run"), status());
            String offered = Files.readString(dir.resolve("state").resolve("offered.log"));
            assertTrue(offered.indexOf("\"paused\"") < offered.indexOf("\"running\"") && offered.contains(
                    "\"running\""), offered);
        }
    }

    @Test
    void whenTheOwnersProgramsGetBusyTaskCodeIsFrozenAndThawedWhenTheyStop() throws Exception {
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer();
             ChildProcess owned = producer(cluster.server(), "--run-when", "idle", "--owner-cpu", "60%")) {
            Computation<Long> c = consumer.submit(new Fib(13, LEAF_20MS));
            Await.until("tasks to run", WAIT, () -> cluster.server().status().tasksCompleted() > 20);
            List<Process> owner = new ArrayList<>();
            try {
                for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
                    owner.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
                }
                Await.until("the worker processes to be frozen", WAIT, () -> allFrozen(owned));
                assertTrue(status().contains("the owner's programs use"), status());
                assertFalse(c.result().isDone());
            } finally {
                owner.forEach(Process::destroyForcibly);
            }
            assertEquals(Fib.value(13), c.result().get(120, TimeUnit.SECONDS));
            assertTrue(noneFrozen(owned));
            assertEquals(1, cluster.server().audit().maxApplied(), "no task's effects applied twice");
        }
    }

    @Test
    void aPauseLongerThanItsLimitGivesTheTasksBackForOthersToRun() throws Exception {
        thermostat("100%");
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer();
             ChildProcess owned = producer(cluster.server(), "--give-back-after", "1s")) {
            TaskServerNode server = cluster.server();
            Computation<Long> c = consumer.submit(new Fib(13, LEAF_20MS));
            Await.until("tasks to run", WAIT, () -> server.status().tasksCompleted() > 20);
            thermostat("0%");
            Await.until("the paused producer to give its tasks back", WAIT,
                    () -> server.status().tasksReleased() > 0);
            cluster.addProducer(2, true);
            assertEquals(Fib.value(13), c.result().get(120, TimeUnit.SECONDS));
            assertTrue(allFrozen(owned) || workers(owned).isEmpty(), "it stayed paused");
            assertEquals(1, server.audit().maxApplied(), "no task's effects applied twice");

            List<ProcessHandle> frozen = workers(owned);
            owned.kill(); // kill -9 of the producer alone: its frozen workers cannot see it go
            Await.until("its frozen worker processes to be gone with it", WAIT,
                    () -> frozen.stream().noneMatch(ProcessHandle::isAlive));
        }
    }

    @Test
    void aMemoryCapGivesBackTheTaskOfAWorkerOverItAndStartsWorkersWithSmallerHeaps() throws Exception {
        try (LocalCluster cluster = Clusters.audited(0, 1, true);
             Consumer consumer = cluster.consumer();
             ChildProcess owned = producer(cluster.server())) {
            TaskServerNode server = cluster.server();
            assertTrue(workers(owned).stream().allMatch(h -> commandLine(h.pid()).contains("-Xmx512m")));
            consumer.submit(new TestTasks.Hoard(250));
            Await.until("the task to fill 250 MiB", WAIT, () -> workers(owned).stream()
                    .anyMatch(h -> ProcessSignals.residentBytes(h.pid()) > (250L << 20)));
            assertEquals(0, server.status().tasksReleased());

            thermostatMemory("400M"); // 200 MiB for each of the 2 workers, 136 MiB of it heap
            Await.until("the task over its share to be given back", WAIT, () -> server.status().tasksReleased() > 0);
            Await.until("a worker to start with the smaller heap", WAIT, () -> workers(owned).stream()
                    .anyMatch(h -> commandLine(h.pid()).contains("-Xmx136m")));
            owned.awaitLine("over the 200 MiB its owner's memory cap leaves it: its task is given back", WAIT);
        }
    }
}
