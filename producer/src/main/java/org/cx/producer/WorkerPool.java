package org.cx.producer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;
import org.cx.api.TaskId;
import org.cx.fs.ActingFor;
import org.cx.wire.BodyCodecs;
import org.cx.wire.ClaimRule;
import org.cx.wire.Completion;
import org.cx.wire.KeptTasks;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskRunner;
import org.cx.wire.TaskHost;
import org.cx.wire.WireConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer's workers: W threads that take the best task from the {@link TaskCache}, have it run where the
 * producer's {@link TaskBox} says (each thread has its own worker process, or runs it itself), and hand its
 * completion to the producer's event loop through a queue. A worker then runs, without asking the server, the task
 * its completion makes ready here (the claim rule, {@link ClaimRule}).
 *
 * <h2>Steps of one worker</h2>
 * <ol>
 *   <li>Take the best cached task, with the connection it came under; the wait is logged as idle time.</li>
 *   <li>Run it against a buffering context, in its worker process or on this thread: every stored task and value is
 *       encoded at once.</li>
 *   <li>If the task came under a connection the producer has since left, drop the completion: the server that took
 *       over runs the task again.</li>
 *   <li>Under the kept-copies lock: keep copies of the unready tasks it stored, supply its values to the kept copies,
 *       pick the task to run next (the claim), and queue the completion, so completions leave in the order their
 *       values reached the copies.</li>
 *   <li>Run the claimed task next, or go back to step 1.</li>
 * </ol>
 */
final class WorkerPool {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
    /** Memory of a worker process beyond its heap (code, metaspace, thread stacks, buffers), in MiB. */
    private static final int WORKER_OVERHEAD_MIB = 64;

    private final ProducerConfig config;
    private final TaskCache cache;
    private final KeptTasks kept;
    private final BodyCodecs codecs;
    private final IdleLog idleLog;
    private final TaskTimeline timeline;
    /** Completions and failures for the event loop, which sends them in batches. */
    private final Queue<Message> toServer;
    /** Asks the event loop to send what is queued. */
    private final Runnable drain;
    private final AtomicLong tasksFailed;
    private final AtomicLong tasksRun = new AtomicLong();
    /** Completes when a worker has run its first task. */
    final java.util.concurrent.CompletableFuture<Void> firstTask = new java.util.concurrent.CompletableFuture<>();
    private final LongAdder idleNanos = new LongAdder();
    private final List<Thread> threads = new ArrayList<>();
    /** Each worker's executor, by worker. */
    private final List<TaskExecutor> executors = new ArrayList<>();
    /** Whose each computation is (from the server's {@code Code}); a worker process runs one user's code. */
    private final LongFunction<String> ownerOf;
    /** Whose a computation is, and the server's grant to act for them in the file service. */
    private final LongFunction<ActingFor> actingFor;
    /** Whether other producers check a computation's results: then this one claims and keeps none of its tasks. */
    private final java.util.function.LongPredicate validated;
    private TaskBox.Isolation isolation;
    private Path scratchRoot;
    /** The file service as tasks see it; null: they reach none. */
    private TaskFiles files;
    private ScheduledExecutorService cpuWatch;
    private volatile boolean stopping;
    /** Which workers may take tasks: the thermostat and a pause narrow it; a shutdown closes it. */
    private final WorkerGate gate;
    /** Per worker, 1 while its running task is being stopped to be given back to the server rather than reported. */
    private final java.util.concurrent.atomic.AtomicIntegerArray givingBack;
    /** Per worker, the task it runs now (null: none). */
    private final java.util.concurrent.atomic.AtomicReferenceArray<TaskId> running;
    /** Per worker, a task the server dropped while that worker ran it: that run is void ({@link #dropped}). */
    private final java.util.concurrent.atomic.AtomicReferenceArray<TaskId> voided;
    /** The frame limit, read once. */
    private final int maxMessageBytes = WireConfig.maxMessageBytes();
    /** Below how many cached tasks a worker caches a child of its own ({@link PrefetchPolicy#ownChildrenAhead}). */
    private volatile int cacheDepth = 1;

    WorkerPool(ProducerConfig config, TaskCache cache, KeptTasks kept, BodyCodecs codecs,
               LongFunction<ActingFor> actingFor,
               java.util.function.LongPredicate validated, IdleLog idleLog, TaskTimeline timeline, Queue<Message> toServer, Runnable drain,
               AtomicLong tasksFailed) {
        this.config = config;
        this.cache = cache;
        this.kept = kept;
        this.codecs = codecs;
        this.actingFor = actingFor;
        this.ownerOf = c -> actingFor.apply(c).user();
        this.validated = validated;
        this.idleLog = idleLog;
        this.timeline = timeline;
        this.toServer = toServer;
        this.drain = drain;
        this.tasksFailed = tasksFailed;
        this.gate = new WorkerGate(config.workers(), cache::wakeAll, drain);
        this.givingBack = new java.util.concurrent.atomic.AtomicIntegerArray(config.workers());
        this.running = new java.util.concurrent.atomic.AtomicReferenceArray<>(config.workers());
        this.voided = new java.util.concurrent.atomic.AtomicReferenceArray<>(config.workers());
    }

    /**
     * The server dropped {@code ids}: a worker that runs one of them now runs a copy whose effects another copy
     * already gave, or that the server never gave this producer (a claim that came second). It claims nothing after
     * it, or the chain of its claims would run on beside the real one; its completion is still sent, so that the
     * server credits the run it asked for.
     */
    void dropped(TaskId[] ids) {
        for (TaskId id : ids) {
            for (int w = 0; w < running.length(); w++) {
                if (id.equals(running.get(w))) {
                    voided.set(w, id); // by id: a mark that comes late cannot void the worker's next task
                }
            }
        }
    }

    /** The worker processes and their descendants (empty for in-process workers). */
    long[] workerPids() {
        return processes().flatMapToLong(w -> java.util.Arrays.stream(w.pids())).toArray();
    }

    /** Workers that run a task now in a worker process. */
    int busyWorkers() {
        return (int) processes().filter(WorkerProcess::busy).count();
    }

    /** Stops the tasks worker processes run now, to give them back to the server; returns how many. */
    int giveBackRunning() {
        int stopped = 0;
        for (int i = 0; i < executors.size(); i++) {
            if (executors.get(i) instanceof WorkerProcess w && giveBack(i, w)) {
                stopped++;
            }
        }
        return stopped;
    }

    /**
     * Gives back the task of each worker process whose resident memory is over {@code bytes} (the owner's memory
     * cap, shared among the open workers), and lowers the heap of processes started from now on to fit it.
     */
    void memoryShare(long bytes) {
        int heap = (int) Math.max(32, Math.min(config.box().heapMiB(), (bytes >> 20) - WORKER_OVERHEAD_MIB));
        for (int i = 0; i < executors.size(); i++) {
            if (executors.get(i) instanceof WorkerProcess w) {
                w.heapMiB(heap);
                long resident = ProcessSignals.residentBytes(w.pids());
                if (w.busy() && resident > bytes && giveBack(i, w)) {
                    LOG.warn("producer {}: worker {} used {} MiB, over the {} MiB its owner's memory cap leaves it: "
                            + "its task is given back", config.name(), i, resident >> 20, bytes >> 20);
                }
            }
        }
    }

    private boolean giveBack(int worker, WorkerProcess w) {
        givingBack.set(worker, 1);
        if (w.giveBackIfRunning()) {
            return true;
        }
        givingBack.set(worker, 0);
        return false;
    }

    private java.util.stream.Stream<WorkerProcess> processes() {
        return executors.stream().filter(WorkerProcess.class::isInstance).map(WorkerProcess.class::cast);
    }

    WorkerGate gate() {
        return gate;
    }

    /** The workers take no new task; each ends after the one it runs. */
    void finish() {
        gate.finish();
    }

    /** Waits up to {@code grace} for every worker to end after {@link #finish}; false if some still run. */
    boolean awaitIdle(java.time.Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                if (t.isAlive()) {
                    return false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /**
     * Decides where task code runs ({@link TaskBox.Isolation#AUTO} becomes the sandbox if the machine has one),
     * starts the worker processes, so that their JVMs boot before the first task, and the worker threads.
     */
    void start() {
        TaskBox box = config.box();
        isolation = WorkerCommand.resolve(box.isolation());
        files = config.fsNames() == null ? null : new TaskFiles(config.fsNames(), config.tls(), config.name(),
                actingFor);
        if (isolation != TaskBox.Isolation.IN_PROCESS) {
            scratchRoot = Scratch.createRoot(config.name());
            WorkerCommand command = new WorkerCommand(isolation, box.heapMiB(), config.speed(),
                    WireConfig.maxMessageBytes(), config.fsNames());
            for (int i = 0; i < config.workers(); i++) {
                WorkerProcess p = new WorkerProcess(config.name() + "-worker-" + i, command, scratchRoot,
                        codecs, ownerOf, WireConfig.maxMessageBytes(), files);
                p.prestart();
                executors.add(p);
            }
            cpuWatch = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, config.name() + "-cpu-watch");
                t.setDaemon(true);
                return t;
            });
            cpuWatch.scheduleWithFixedDelay(() -> {
                for (TaskExecutor e : executors) {
                    ((WorkerProcess) e).checkCpu(box.cpuPerTask());
                }
            }, 500, 500, TimeUnit.MILLISECONDS);
        } else {
            TaskHost host = new TaskHost(config.speed(),
                    c -> files == null ? null : files.forComputation(c));
            for (int i = 0; i < config.workers(); i++) {
                executors.add(new TaskExecutor.InProcess(codecs, host));
            }
        }
        for (int i = 0; i < config.workers(); i++) {
            int worker = i;
            Thread t = new Thread(() -> work(worker), config.name() + "-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    void stop() {
        stopping = true;
        for (Thread t : threads) {
            t.interrupt();
        }
        if (cpuWatch != null) {
            cpuWatch.shutdownNow();
        }
        for (TaskExecutor e : executors) {
            e.close();
        }
        if (files != null) {
            files.close();
        }
        if (scratchRoot != null) {
            try {
                Scratch.delete(scratchRoot);
            } catch (java.io.UncheckedIOException e) {
                LOG.warn("could not remove the workers' scratch directories: {}", e.getMessage());
            }
        }
    }

    /** Where task code runs (known once started). */
    TaskBox.Isolation isolation() {
        return isolation;
    }

    /** {@code computation} is over: a task of it that runs now is stopped where that can be done. */
    void ended(long computation) {
        for (TaskExecutor e : executors) {
            e.ended(computation);
        }
    }

    /** Worker processes replaced because task code ended them or was stopped. */
    long workerRestarts() {
        long n = 0;
        for (TaskExecutor e : executors) {
            n += e.restarts();
        }
        return n;
    }

    long tasksRun() {
        return tasksRun.get();
    }

    /** Worker time spent waiting for a task, summed over workers. */
    long idleNanos() {
        return idleNanos.sum();
    }

    private void work(int worker) {
        try {
            ReadyTask task = null;
            int taken = 0;
            while (!stopping) {
                if (task != null && !gate.mayRun(worker)) {
                    synchronized (kept) { // claimed, but this worker is to stop: another may run it
                        if (taken == cache.connection()) {
                            cache.add(List.of(task));
                        }
                    }
                    task = null;
                }
                if (task == null) {
                    if (!gate.await(worker)) {
                        return; // the producer is finishing
                    }
                    long waitFrom = System.nanoTime();
                    idleLog.waiting(worker, waitFrom);
                    TaskCache.Taken next = cache.takeUnder(Long.MAX_VALUE, () -> gate.mayRun(worker));
                    long waitTo = System.nanoTime();
                    idleLog.working(worker, waitTo);
                    idleNanos.add(waitTo - waitFrom);
                    if (next == null) {
                        if (stopping || cache.isClosed()) {
                            return;
                        }
                        continue; // the gate narrowed while it waited
                    }
                    task = next.task();
                    taken = next.connection();
                }
                task = runAndClaim(worker, task, taken);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Worker {@code worker} runs {@code task}, hands its completion to the event loop, and returns the task it claims
     * to run next (see {@link ClaimRule}), or null.
     */
    private ReadyTask runAndClaim(int worker, ReadyTask task, int taken) {
        long start = timeline.enabled() ? System.nanoTime() : 0;
        running.set(worker, task.task().id());
        TaskRunner.Outcome outcome = executors.get(worker).run(task);
        running.set(worker, null);
        boolean isVoid = task.task().id().equals(voided.getAndSet(worker, null));
        boolean givenBack = givingBack.getAndSet(worker, 0) == 1;
        if (outcome == null && givenBack && !stopping) {
            toServer.add(new Message.GiveBack(new TaskId[] {task.task().id()}));
            drain.run();
            return null;
        }
        if (outcome == null || stopping) {
            return null; // stopped: its computation is over, or the producer is closing (and ended the process)
        }
        if (outcome instanceof TaskRunner.Outcome.Done d) {
            String tooLarge = d.completion().tooLargeFor(maxMessageBytes);
            if (tooLarge != null) {
                outcome = new TaskRunner.Outcome.Failed(task.task().id(), tooLarge); // it could never be sent
            }
        }
        if (timeline.enabled()) {
            timeline.record(worker, start, System.nanoTime(), task.task().id(),
                    outcome instanceof TaskRunner.Outcome.Done d ? d.kind() : "failed");
        }
        ReadyTask next = null;
        switch (outcome) {
            case TaskRunner.Outcome.Done d -> {
                if (tasksRun.incrementAndGet() == 1) {
                    firstTask.complete(null);
                }
                // Workers supply their own values to kept copies in the order their completions leave: otherwise
                // a worker could claim a task on a value another worker supplied but had not yet queued, the
                // server would see the claiming completion first, void the claim, and hand the task out again.
                synchronized (kept) {
                    if (taken != cache.connection()) {
                        // A task of a server this producer has left (Producer.lost clears the cache under this lock,
                        // so no claim or cached child of it outlives the connection): the server that took over
                        // runs it.
                        return null;
                    }
                    ClaimRule.Claim claim = config.claim() && !isVoid
                            && !validated.test(task.task().id().computation())
                            ? ClaimRule.claim(d.completion(), kept,
                                    cache.size() < cacheDepth && cache.starvingWorkers() == 0)
                            : new ClaimRule.Claim(d.completion(), null);
                    next = claim.next();
                    Completion done = claim.completion();
                    toServer.add(new Message.Completed(new Completion[] {done}));
                    if (done.cachedHere() >= 0) {
                        // After its parent's completion: the server learns of it before any completion of it.
                        cache.add(List.of(new ReadyTask(done.spawned()[done.cachedHere()], new byte[0][])));
                    }
                }
            }
            case TaskRunner.Outcome.Failed f -> {
                tasksFailed.incrementAndGet();
                LOG.info("task {} failed on producer {}: {}", f.id(), config.name(), firstLine(f.reason()));
                if (taken == cache.connection()) {
                    toServer.add(new Message.TaskFailed(f.id(), f.reason()));
                }
            }
        }
        if (next != null || cache.size() > 0) {
            drain.run();
        }
        // Otherwise this worker is about to wait on the cache, which schedules the drain itself: then the
        // completion and the news that a worker is idle leave in the same batch, with one wake-up of the loop.
        return next;
    }

    /** While the cache holds fewer than {@code depth} tasks, a worker caches a ready child of its own there. */
    void cacheDepth(int depth) {
        cacheDepth = depth;
    }

    static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
