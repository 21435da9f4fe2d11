package org.cx.producer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.cx.api.TaskId;
import org.cx.fs.FsRelay;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Completion;
import org.cx.wire.MalformedMessageException;
import org.cx.wire.Message;
import org.cx.wire.MessageStreams;
import org.cx.wire.PendingReleases;
import org.cx.wire.Sources;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's process ({@link WorkerMain}): started by the worker's thread, which sends it one task at a time and
 * waits for the answer; replaced when task code ends it. What comes back is written by task code too, so it is
 * bounded and checked: an answer that is not about the task sent ends the process and fails the task.
 *
 * <h2>One user's code per process</h2>
 * A process runs tasks of one user only: before a task of another user it is replaced, so that nothing one user's
 * code leaves behind in a JVM (threads, static state, changed system streams) meets another user's tasks. Between
 * computations of one user the scratch directory is emptied.
 *
 * <h2>Stopping a task</h2>
 * A task is stopped by ending its process (a JVM cannot stop a thread safely): when it has used more CPU time than
 * {@link TaskBox#cpuPerTask()} ({@link #checkCpu}, called by the producer's watch), and when its computation ended
 * ({@link #ended}). Both record why before ending it, under this object's lock and only while that task runs, so the
 * worker's thread, which then reads the end of the stream, reports the right reason and never blames the next task.
 *
 * <p>Just over 500 lines, one job: one process's life (start, feed, watch, end). What the process hears besides tasks
 * (computations ended, values let go) waits beside it, in a queue and in {@link PendingReleases}.
 */
final class WorkerProcess implements TaskExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerProcess.class);
    /** Lines of a worker's standard error kept to explain its end. */
    private static final int TAIL_LINES = 12;
    private static final String ENDED = "";
    /** Why a task stopped by {@link #giveBackIfRunning} was: it is given back, not reported as failed. */
    private static final String GIVEN_BACK = "given back";

    private final String name;
    private final WorkerCommand command;
    private final Path scratchRoot;
    /** The bundle a computation's tasks run from; null: the class path. */
    private final LongFunction<CodeBundle> codeOf;
    /** The shared data a computation's tasks read; null: none. */
    private final LongFunction<CodeBundle> dataOf;
    /** Whose a computation is. */
    private final LongFunction<String> ownerOf;
    private final int maxMessageBytes;
    /** The producer's large values, sent to the process ahead of the tasks that read them. */
    private final org.cx.wire.ValueStore values;
    private final boolean ownsValues;
    private final AtomicLong restarts = new AtomicLong();
    /** The heap a new process gets now, in MiB: the owner's memory cap may lower it. */
    private volatile int heapMiB;
    /** The heap the running process was started with. */
    private int processHeapMiB;
    /** Computations that ended since the process last heard: it may drop their code. */
    private final Queue<Long> endedSinceLastTask = new ConcurrentLinkedQueue<>();
    /** Values the producer let go since the process last heard: it lets go those it was sent. */
    private final PendingReleases released = new PendingReleases();

    // The worker thread's state.
    private Process process;
    /** The user whose code the process has run; null until its first task. */
    private String processOwner;
    private MessageStreams streams;
    /** Which large values the process holds, and those arriving from it. */
    private org.cx.wire.PeerValues processValues;
    private Deque<String> errorTail;
    private Thread errorLogger;
    /** Computation -> bundle hash, as this process knows them (a bundle it knows is bound to a computation). */
    private final Map<Long, String> bound = new HashMap<>();
    private Path scratch;
    private int scratchGeneration;
    private long scratchOwner = -1;

    // Shared with the watch and the event loop, under this object's lock.
    private long runningComputation = -1;
    /** Why the process was ended while a task ran: null if it was not. */
    private String stoppedBecause;
    private boolean killed;
    /** Each task's number, for the CPU watch: a new task starts a new measure. */
    private long taskSeq;
    private long watchedSeq = -1;
    private long cpuAtWatchStart;
    /** The process and its descendants (bubblewrap's JVM), found once per process by the watch; null: not yet. */
    private long[] tree;
    /** How its tasks reach the file service; null: they do not. */
    private final FsRelay relay;

    /**
     * @param codecs the producer's bundles: which code and shared data each computation has
     * @param files  the file service its tasks reach, through a relay of this worker's own; null: none
     */
    WorkerProcess(String name, WorkerCommand command, Path scratchRoot, BodyCodecs codecs,
                  LongFunction<String> ownerOf, int maxMessageBytes, TaskFiles files) {
        this.name = name;
        this.command = command;
        this.scratchRoot = scratchRoot;
        this.codeOf = codecs::bundleOf;
        this.dataOf = codecs::dataOf;
        this.ownerOf = ownerOf;
        this.maxMessageBytes = maxMessageBytes;
        this.ownsValues = codecs.values() == null; // a process's large values come back whatever the codecs
        this.values = ownsValues ? org.cx.wire.ValueStore.temporary(name) : codecs.values();
        values.onRelease(released);
        this.scratch = scratchRoot.resolve(name);
        this.heapMiB = command.heapMiB();
        this.relay = files == null ? null : startRelay(files);
    }

    /**
     * The file service relay of this worker's tasks, in a directory of its own beside the scratch directory (which
     * is emptied between computations), acting for the owner of the task running now.
     */
    private FsRelay startRelay(TaskFiles files) {
        Path dir = scratchRoot.resolve(name + ".fs");
        try {
            java.nio.file.Files.createDirectories(dir);
            return files.relay(dir.resolve("relay"), () -> {
                synchronized (this) {
                    return runningComputation;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the file service relay of worker " + name + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * New processes get a heap of {@code mib}; a process started with more is replaced before its next task (the
     * owner's memory cap fell).
     */
    void heapMiB(int mib) {
        heapMiB = mib;
    }

    /** Starts the process ahead of the first task, so that its JVM boots meanwhile. */
    void prestart() {
        try {
            ensureStarted();
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("worker {} could not start its process: {}", name, e.getMessage());
        }
    }

    @Override
    public TaskRunner.Outcome run(ReadyTask task) {
        TaskId id = task.task().id();
        long computation = id.computation();
        String owner = ownerOf.apply(computation);
        try {
            if (processOwner != null && !processOwner.equals(owner)) {
                end(); // another user's code ran in it
            }
            if (scratchOwner != computation) {
                emptyScratch();
                scratchOwner = computation;
            }
            ensureStarted();
            processOwner = owner;
            introduce(computation);
            synchronized (this) {
                stoppedBecause = null;
                runningComputation = computation;
                taskSeq++;
            }
            streams.write(new Message.Assign(new ReadyTask[] {task}), processValues);
            streams.flush();
            Message answer = streams.read();
            while (processValues.received(answer)) {
                answer = streams.read(); // a chunk of a large value the task made, ahead of its outcome
            }
            synchronized (this) {
                runningComputation = -1;
            }
            return switch (answer) {
                case Message.Completed done when done.completions().length == 1
                        && done.completions()[0].id().equals(id) -> new TaskRunner.Outcome.Done(effectsOnly(
                                done.completions()[0]), "");
                case Message.TaskFailed failed when failed.id().equals(id) ->
                        new TaskRunner.Outcome.Failed(id, failed.reason());
                default -> {
                    end();
                    yield new TaskRunner.Outcome.Failed(id, "task " + id + " made its worker process answer with "
                            + "something else than its outcome (" + answer.getClass().getSimpleName() + ")");
                }
            };
        } catch (IOException | MalformedMessageException | UncheckedIOException e) {
            String why;
            synchronized (this) {
                runningComputation = -1;
                why = stoppedBecause;
            }
            String exit = end();
            restarts.incrementAndGet();
            if (why == ENDED || why == GIVEN_BACK) {
                return null;
            }
            if (why != null) {
                return new TaskRunner.Outcome.Failed(id, "task " + id + " " + why);
            }
            return new TaskRunner.Outcome.Failed(id, "task " + id + " ended its worker process (" + exit + ")"
                    + (e instanceof java.io.EOFException ? "" : ": " + e.getMessage()) + tail());
        }
    }

    /**
     * The task's effects only: claims and kept copies are the producer's to decide, whatever task code wrote on the
     * process's output.
     */
    private static Completion effectsOnly(Completion c) {
        return c.effectsOnly();
    }

    /**
     * Starts the process unless it runs and has said nothing since its last answer (a process that writes
     * unasked, as task code writing on its output does, would have its words taken for the next task's answer).
     */
    private void ensureStarted() throws IOException {
        synchronized (this) {
            if (process != null && process.isAlive() && !killed && streams.pending() == 0
                    && processHeapMiB <= heapMiB) {
                return;
            }
        }
        end();
        Scratch.empty(scratch);
        int heap = heapMiB;
        ProcessBuilder pb = new ProcessBuilder(command.command(scratch, heap, relay == null ? null : relay.socket()))
                .directory(scratch.toFile());
        pb.environment().clear();
        Process p = pb.start();
        Deque<String> tail = new ArrayDeque<>();
        Thread logger = new Thread(() -> logErrors(p, tail), name + "-stderr");
        logger.setDaemon(true);
        logger.start();
        synchronized (this) {
            process = p;
            processHeapMiB = heap;
            killed = false;
            watchedSeq = -1;
            tree = null;
        }
        errorTail = tail;
        errorLogger = logger;
        processOwner = null;
        streams = new MessageStreams(p.getInputStream(), p.getOutputStream(), maxMessageBytes);
        if (processValues != null) {
            processValues.closed();
        }
        processValues = new org.cx.wire.PeerValues(values, false); // task code may not make the producer drop values
        bound.clear();
    }

    /**
     * Tells the process of computations that ended, of values let go, and of {@code computation}'s code, sending the
     * bundle unless it has it; a task of another computation than the last one finds the scratch directory empty.
     */
    private void introduce(long computation) throws IOException {
        for (Long ended; (ended = endedSinceLastTask.poll()) != null; ) {
            if (bound.remove(ended) != null) {
                streams.write(new Message.ComputationEnded(ended), processValues);
            }
        }
        Message.ValuesReleased letGo = released.drain();
        if (letGo != null) {
            streams.write(letGo, processValues);
        }
        if (bound.containsKey(computation)) {
            return;
        }
        CodeBundle bundle = codeOf.apply(computation);
        CodeBundle data = dataOf.apply(computation);
        String sources = Sources.of(bundle == null ? CodeBundle.CLASS_PATH : bundle.hash(),
                data == null ? "" : data.hash());
        streams.write(new Message.Code(computation, sources, "", false));
        for (CodeBundle b : new CodeBundle[] {bundle, data}) {
            if (b != null && bound.values().stream().noneMatch(s -> Sources.bundles(s).contains(b.hash()))) {
                for (Message.BundleChunk chunk : BundleAssembly.chunks(b)) {
                    streams.write(chunk);
                }
            }
        }
        bound.put(computation, sources);
    }

    /**
     * Empties the scratch directory, but for the process's large values (they are of the same user); one that task
     * code made undeletable is left behind for a fresh one.
     */
    private void emptyScratch() {
        try {
            Scratch.empty(scratch, WorkerMain.VALUES_DIRECTORY);
        } catch (UncheckedIOException e) {
            LOG.warn("worker {}: {}; using a new one", name, e.getMessage());
            scratch = scratchRoot.resolve(name + "-" + ++scratchGeneration);
            end(); // the process works in the old one; the next starts in the new one
        }
    }

    /** Ends the process, if any; returns how it ended. */
    private String end() {
        Process p;
        synchronized (this) {
            p = process;
            process = null;
            killed = false;
        }
        if (p == null) {
            return "not started";
        }
        kill(p);
        try {
            if (p.waitFor(5, TimeUnit.SECONDS)) {
                int status = p.exitValue();
                return status > 128 ? "killed by signal " + (status - 128) : "exit status " + status;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "still running";
    }

    /** Kills {@code p} and what it started (the sandbox's JVM is a descendant of bubblewrap). */
    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /** Stops the running task if it is of {@code computation}, without a report; its code is dropped later. */
    @Override
    public void ended(long computation) {
        endedSinceLastTask.add(computation);
        stopIfRunning(computation, ENDED);
    }

    /**
     * Stops the running task, if any, so that the producer gives it back to its server ({@link #run} returns null);
     * true if one ran.
     */
    boolean giveBackIfRunning() {
        return stopIfRunning(-1, GIVEN_BACK);
    }

    private synchronized boolean stopIfRunning(long computation, String why) {
        if (process != null && runningComputation != -1 && (computation == -1 || runningComputation == computation)) {
            stoppedBecause = why;
            killed = true;
            kill(process);
            return true;
        }
        return false;
    }

    /** Whether a task runs now. */
    synchronized boolean busy() {
        return process != null && runningComputation != -1;
    }

    /** The process and its descendants as found once per process (empty if none runs). */
    long[] pids() {
        Process p;
        synchronized (this) {
            p = process;
        }
        return p == null ? new long[0] : tree(p);
    }

    private synchronized long[] tree(Process p) {
        if (tree == null || process != p) {
            long[] found = java.util.stream.LongStream.concat(java.util.stream.LongStream.of(p.pid()),
                    p.descendants().mapToLong(ProcessHandle::pid)).toArray();
            if (process != p || command.isolation() == TaskBox.Isolation.SANDBOX && java.util.Arrays.stream(found)
                    .skip(1).noneMatch(pid -> "java".equals(ProcessCpu.name(pid)))) {
                return found; // bubblewrap (two processes of its own) has yet to start the JVM: look again next time
            }
            tree = found;
        }
        return tree;
    }

    /**
     * The CPU watch (every few hundred milliseconds): a task that has used more than {@code limit} of CPU time since
     * the watch first saw it is stopped and fails. CPU time is the worker's whole process tree's.
     */
    void checkCpu(Duration limit) {
        Process p;
        long seq;
        synchronized (this) {
            if (process == null || runningComputation == -1) {
                return;
            }
            p = process;
            seq = taskSeq;
        }
        long cpu = cpuNanos(p);
        if (cpu < 0) {
            return; // the process is gone: the worker's thread reports it
        }
        synchronized (this) {
            if (seq != taskSeq || runningComputation == -1) {
                return;
            }
            if (seq != watchedSeq) {
                watchedSeq = seq;
                cpuAtWatchStart = cpu;
            } else if (cpu - cpuAtWatchStart > limit.toNanos()) {
                stopIfRunning(-1, "used more than " + describe(limit) + " of CPU time, the limit per task of "
                        + "producer " + name.replaceFirst("-worker-\\d+$", "") + " (--task-cpu-limit): stopped");
            }
        }
    }

    /**
     * CPU time of the process and its descendants as found once (the JVM inside bubblewrap; programs task code
     * starts count once they end, as their parent's children); -1 if the process is gone.
     */
    private long cpuNanos(Process p) {
        long[] pids = tree(p);
        long total = 0;
        for (long pid : pids) {
            long cpu = ProcessCpu.nanos(pid);
            if (cpu < 0) {
                return p.isAlive() ? total : -1;
            }
            total += cpu;
        }
        return total;
    }

    static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public long restarts() {
        return restarts.get();
    }

    @Override
    public void close() {
        end();
        if (relay != null) {
            relay.close();
        }
        values.removeReleaseListener(released);
        if (ownsValues) {
            values.close();
        }
    }

    /** Logs what the process writes to standard error (task code's output among it), keeping the last lines. */
    private void logErrors(Process p, Deque<String> tail) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                String shown = line.length() > 500 ? line.substring(0, 500) + "…" : line;
                LOG.info("{}: {}", name, shown);
                synchronized (tail) {
                    tail.addLast(shown);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    /** The last lines the process wrote to standard error, to explain its end. */
    private String tail() {
        Deque<String> t = errorTail;
        if (t == null) {
            return "";
        }
        try {
            errorLogger.join(1000); // what it wrote last is read once the process is gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (t) {
            return t.isEmpty() ? "" : "\nits last output:\n" + String.join("\n", List.copyOf(t));
        }
    }
}
