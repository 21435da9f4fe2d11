package org.cx.producer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what a producer's owner decided ({@link OwnerSettings}), on one thread, every {@link #TICK_MILLIS} while
 * task code runs (or is frozen, or duty-cycled) and every {@link #IDLE_TICK_MILLIS} while it has nothing to run (then
 * there is nothing to freeze at once, and an idle producer costs its owner little):
 * <ol>
 *   <li>re-reads the thermostat file if it changed, and takes the cap in force now;</li>
 *   <li>asks the {@link RunPolicy} whether task code may run (the screensaver rule, the schedule);</li>
 *   <li>turns the cap into a {@link CpuPlan}: opens the first {@code open} workers' gate, duty-cycles the worker
 *       processes ({@code SIGSTOP} for the rest of each {@link #DUTY_PERIOD_MILLIS} period), or, paused, freezes
 *       them all; thaws them when task code may run again;</li>
 *   <li>shares the memory cap among the open workers: smaller heaps for new worker processes, and the task of a
 *       process over its share given back;</li>
 *   <li>when a pause outlasts its limit, gives back every task the producer holds;</li>
 *   <li>logs each change of what is offered (the accounting service reads it) and writes the status that
 *       {@code cx producer status} shows.</li>
 * </ol>
 */
final class Governor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Governor.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final long TICK_MILLIS = 250;
    static final long IDLE_TICK_MILLIS = 1000;
    static final long DUTY_PERIOD_MILLIS = 500;
    /** How often the status file is rewritten when nothing changed (when tasks run: every second). */
    static final long STATUS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final String STATUS_FILE = "status.json";
    static final String OFFERED_LOG = "offered.log";

    /** What the producer does for the governor. */
    interface Hooks {
        /** Gives every cached task back to the server. */
        void giveBackCached();

        /** The server the producer is attached to, or empty. */
        String server();

        long tasksRun();
    }

    private final String name;
    private final int workers;
    private final WorkerPool pool;
    private final OwnerSettings settings;
    private final IdleSource idle;
    private final Hooks hooks;
    private final Clock clock;
    private final RunPolicy policy;
    private final int processors = Runtime.getRuntime().availableProcessors();
    private final long physicalMemory = physicalMemory();
    private final ScheduledExecutorService thread;

    // The governor thread's state.
    private Thermostat thermostat = Thermostat.OPEN;
    private FileTime thermostatTime;
    private String thermostatProblem;
    private int open;
    private boolean frozen;
    private long memoryShare = Long.MAX_VALUE;
    private double duty = 1;
    private ScheduledFuture<?> dutyPhase;
    private long[] stoppedByDuty = new long[0];
    private String offered = "";
    private long statusWrittenNanos;
    /** CPU of each worker process (and this producer's), as last read, by pid. */
    private final Map<Long, Long> cpuByPid = new HashMap<>();
    private long taskCpuNanos;
    private boolean wasBusy = true;
    private LocalDate today;
    private long tasksBeforeToday;
    private long taskCpuBeforeToday;

    private volatile Status status;

    /**
     * What the governor last decided, for {@code cx producer status} and JMX.
     *
     * @param state        running, capped or paused
     * @param why          said to the owner
     * @param since        when this state began
     * @param cap          the thermostat's cap in force
     * @param openWorkers  workers that may take tasks
     * @param duty         share of each period the worker processes run
     * @param tasksToday   tasks run since local midnight
     * @param cpuToday     CPU seconds of task code since local midnight
     */
    record Status(RunPolicy.State state, String why, Instant since, Thermostat.Cap cap, int openWorkers,
                  double duty, long tasksToday, double cpuToday) {
    }

    /** @param idle the owner as seen through the CPU this governor counts as task code's and its producer's */
    Governor(String name, int workers, WorkerPool pool, OwnerSettings settings,
             java.util.function.Function<java.util.function.LongSupplier, IdleSource> idle, Hooks hooks, Clock clock) {
        this.name = name;
        this.workers = workers;
        this.pool = pool;
        this.settings = settings;
        this.idle = idle.apply(this::ourCpuNanos);
        this.hooks = hooks;
        this.clock = clock;
        this.open = workers;
        this.policy = new RunPolicy(settings.runWhen(), settings.idleAfter(), settings.ownerCpu(),
                settings.giveBackAfter());
        this.status = new Status(RunPolicy.State.RUNNING, "starting", clock.instant(), Thermostat.Cap.NONE, workers,
                1, 0, 0);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-governor");
            t.setDaemon(true);
            return t;
        });
    }

    /** The governor of {@code pool}'s workers, looking at this machine for the owner. */
    static Governor start(String name, int workers, WorkerPool pool, OwnerSettings settings, Hooks hooks) {
        Governor g = new Governor(name, workers, pool, settings, MachineIdle::new, hooks, Clock.systemDefaultZone());
        g.start();
        return g;
    }

    void start() {
        thread.execute(this::tickSafely);
    }

    Status status() {
        return status;
    }

    private void tickSafely() {
        try {
            tick(System.nanoTime());
        } catch (RuntimeException e) {
            LOG.warn("producer {}: the governor's round failed: {}", name, e.toString(), e);
        }
        if (!thread.isShutdown()) {
            boolean active = duty < 1 || pool.busyWorkers() > 0;
            thread.schedule(this::tickSafely, active ? TICK_MILLIS : IDLE_TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** One round (the governor thread). */
    void tick(long nowNanos) {
        reloadThermostat();
        LocalDateTime local = LocalDateTime.now(clock);
        Thermostat.Cap cap = thermostat.capAt(local);
        updateCpu(local.toLocalDate());
        RunPolicy.Sample sample = settings.runWhen() == RunWhen.IDLE ? idle.sample(nowNanos) : RunPolicy.Sample.AWAY;
        RunPolicy.Decision d = policy.decide(nowNanos, cap, sample);
        CpuPlan plan = d.state() == RunPolicy.State.PAUSED ? new CpuPlan(0, 1)
                : CpuPlan.of(cap.cpu(), processors, workers, settings.capMode());
        apply(plan, cap);
        if (d.giveBack()) {
            hooks.giveBackCached();
            int stopped = pool.giveBackRunning();
            LOG.info("producer {}: paused for longer than {} s: its tasks are given back ({} were running)", name,
                    settings.giveBackAfter().toSeconds(), stopped);
        }
        report(nowNanos, d, cap, plan);
    }

    private void apply(CpuPlan plan, Thermostat.Cap cap) {
        if (plan.open() != open) {
            open = plan.open();
            pool.gate().open(open);
        }
        if (plan.paused()) {
            setDuty(1);
            if (!frozen) {
                frozen = true;
                ProcessSignals.send("STOP", pool.workerPids());
            }
        } else {
            if (frozen) {
                frozen = false;
                ProcessSignals.send("CONT", pool.workerPids());
            }
            setDuty(plan.duty());
        }
        long share = cap.memory().unlimited() ? Long.MAX_VALUE
                : cap.memory().bytesOf(physicalMemory) / Math.max(1, Math.min(open, workers));
        if (share != Long.MAX_VALUE || memoryShare != Long.MAX_VALUE) {
            pool.memoryShare(share); // also when the cap is lifted: new processes get their full heap again
        }
        memoryShare = share;
    }

    // ---------------------------------------------------------------- duty cycle

    private void setDuty(double next) {
        if (next == duty) {
            return;
        }
        duty = next;
        if (duty < 1 && dutyPhase == null) {
            dutyPhase = thread.schedule(this::dutyPeriod, 0, TimeUnit.MILLISECONDS);
        } else if (duty >= 1 && dutyPhase != null) {
            dutyPhase.cancel(false);
            dutyPhase = null;
            resumeFromDuty();
        }
    }

    /** The start of a period: the stopped processes run again, and stop after {@code duty} of the period. */
    private void dutyPeriod() {
        resumeFromDuty();
        if (duty >= 1 || frozen) {
            dutyPhase = null;
            return;
        }
        long onNanos = (long) (duty * TimeUnit.MILLISECONDS.toNanos(DUTY_PERIOD_MILLIS));
        if (pool.busyWorkers() > 0) {
            thread.schedule(() -> {
                if (duty < 1 && !frozen) {
                    stoppedByDuty = pool.workerPids();
                    ProcessSignals.send("STOP", stoppedByDuty);
                }
            }, onNanos, TimeUnit.NANOSECONDS);
        }
        dutyPhase = thread.schedule(this::dutyPeriod, DUTY_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void resumeFromDuty() {
        if (stoppedByDuty.length > 0 && !frozen) {
            ProcessSignals.send("CONT", stoppedByDuty);
        }
        stoppedByDuty = new long[0];
    }

    // ---------------------------------------------------------------- thermostat file

    private void reloadThermostat() {
        Path file = settings.thermostat();
        if (file == null) {
            return;
        }
        FileTime time;
        try {
            time = Files.exists(file) ? Files.getLastModifiedTime(file) : FileTime.fromMillis(0);
        } catch (IOException e) {
            return;
        }
        if (time.equals(thermostatTime)) {
            return;
        }
        thermostatTime = time;
        try {
            Thermostat next = Thermostat.read(file);
            next = settings.runWhen() == RunWhen.SCHEDULE ? next.closedOutsideIntervals() : next;
            if (!next.equals(thermostat)) {
                LOG.info("producer {}: thermostat {}: {}", name, file, next);
            }
            thermostat = next;
            thermostatProblem = null;
        } catch (IOException e) {
            thermostatProblem = e.getMessage();
            LOG.warn("producer {}: keeping the caps in force: {}", name, e.getMessage());
        }
    }

    // ---------------------------------------------------------------- CPU and counts

    /** CPU used so far by task code and by this producer (what the owner did not use). */
    long ourCpuNanos() {
        return taskCpuNanos + ProcessCpu.nanos(ProcessHandle.current().pid());
    }

    /** Adds what each worker process used since the last round; counts from zero again after midnight. */
    private void updateCpu(LocalDate date) {
        boolean busy = pool.busyWorkers() > 0;
        if (busy || wasBusy) { // idle worker processes use next to nothing: an idle producer reads nothing
            readTaskCpu();
        }
        wasBusy = busy;
        if (!date.equals(today)) {
            today = date;
            tasksBeforeToday = hooks.tasksRun();
            taskCpuBeforeToday = taskCpuNanos;
        }
    }

    private void readTaskCpu() {
        Map<Long, Long> now = new HashMap<>();
        for (long pid : pool.workerPids()) {
            long cpu = ProcessCpu.nanos(pid);
            if (cpu >= 0) {
                now.put(pid, cpu);
                taskCpuNanos += Math.max(0, cpu - cpuByPid.getOrDefault(pid, 0L));
            }
        }
        cpuByPid.clear();
        cpuByPid.putAll(now);
    }

    // ---------------------------------------------------------------- reports

    private void report(long nowNanos, RunPolicy.Decision d, Thermostat.Cap cap, CpuPlan plan) {
        Status was = status;
        boolean changed = was.state() != d.state() || !was.why().equals(d.why()) || !was.cap().equals(cap)
                || was.openWorkers() != plan.open();
        Instant since = was.state() == d.state() && !was.why().equals("starting") ? was.since() : clock.instant();
        status = new Status(d.state(), d.why(), since, cap, plan.open(), plan.duty(),
                hooks.tasksRun() - tasksBeforeToday, (taskCpuNanos - taskCpuBeforeToday) / 1e9);
        if (changed) {
            LOG.info("producer {}: {} ({} of {} workers open{})", name, d.why(), plan.open(), workers,
                    plan.dutyCycled() ? ", running " + Thermostat.percent(plan.duty()) + " of the time" : "");
        }
        String nowOffered = d.state() + " " + cap;
        if (!nowOffered.equals(offered)) {
            offered = nowOffered;
            logOffered(d, cap);
        }
        boolean counted = status.tasksToday() != was.tasksToday()
                && nowNanos - statusWrittenNanos >= TimeUnit.SECONDS.toNanos(1); // while tasks run: each second
        if (changed || counted || nowNanos - statusWrittenNanos >= STATUS_EVERY_NANOS) {
            statusWrittenNanos = nowNanos;
            writeStatus();
        }
    }

    /** Appends what is offered from now on to the offered-capacity log: one JSON object per line. */
    private void logOffered(RunPolicy.Decision d, Thermostat.Cap cap) {
        Path dir = settings.stateDir();
        if (dir == null) {
            return;
        }
        ObjectNode line = JSON.createObjectNode();
        line.put("time", clock.instant().toString());
        line.put("producer", name);
        line.put("state", d.state().name().toLowerCase(java.util.Locale.ROOT));
        line.put("processors", d.state() == RunPolicy.State.PAUSED ? 0 : cap.cpu() * processors);
        line.put("memoryBytes", d.state() == RunPolicy.State.PAUSED ? 0
                : Math.min(physicalMemory, cap.memory().bytesOf(physicalMemory)));
        line.put("why", d.why());
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(OFFERED_LOG), JSON.writeValueAsString(line) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            LOG.warn("producer {}: cannot log offered capacity: {}", name, e.getMessage());
        }
    }

    private void writeStatus() {
        Path dir = settings.stateDir();
        if (dir == null) {
            return;
        }
        Status s = status;
        ObjectNode n = JSON.createObjectNode();
        n.put("name", name);
        n.put("pid", ProcessHandle.current().pid());
        n.put("updated", clock.instant().toString());
        n.put("state", s.state().name().toLowerCase(java.util.Locale.ROOT));
        n.put("why", s.why());
        n.put("since", s.since().toString());
        n.put("runWhen", settings.runWhen().name().toLowerCase(java.util.Locale.ROOT));
        n.put("cpuCap", Thermostat.percent(s.cap().cpu()));
        n.put("memoryCap", s.cap().memory().toString());
        n.put("thermostat", settings.thermostat() == null ? "" : settings.thermostat().toString());
        if (thermostatProblem != null) {
            n.put("thermostatProblem", thermostatProblem);
        }
        n.put("workers", workers);
        n.put("openWorkers", s.openWorkers());
        n.put("busyWorkers", pool.busyWorkers());
        n.put("duty", s.duty());
        n.put("server", hooks.server());
        n.put("tasksToday", s.tasksToday());
        n.put("cpuSecondsToday", Math.round(s.cpuToday() * 10) / 10.0);
        try {
            Files.createDirectories(dir);
            Path temp = dir.resolve("." + STATUS_FILE + ".tmp"); // this thread alone writes it
            Files.writeString(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n) + "\n");
            Files.move(temp, dir.resolve(STATUS_FILE), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.warn("producer {}: cannot write its status: {}", name, e.getMessage());
        }
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return Long.MAX_VALUE;
    }

    /** Stops governing: frozen or duty-stopped worker processes run again (to end cleanly). */
    @Override
    public void close() {
        try {
            thread.submit(() -> {
                setDuty(1);
                if (frozen) {
                    frozen = false;
                    ProcessSignals.send("CONT", pool.workerPids());
                }
            }).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("producer {}: the governor did not stop cleanly: {}", name, e.toString());
        }
        thread.shutdownNow();
        Status s = status;
        status = new Status(RunPolicy.State.STOPPED, "stopped", clock.instant(), s.cap(), 0, 1, s.tasksToday(),
                s.cpuToday());
        writeStatus();
    }
}
