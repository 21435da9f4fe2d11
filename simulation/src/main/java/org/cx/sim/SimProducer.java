package org.cx.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cx.api.TaskId;
import org.cx.wire.BodyCodec;
import org.cx.wire.ClaimRule;
import org.cx.wire.Completion;
import org.cx.wire.KeptTasks;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.TaskRunner;
import org.cx.wire.WireConfig;

/**
 * A producer in the simulation. It speaks the producer's side of the protocol as {@code cx producer} does: asks
 * for credit to keep its workers and a small cache busy, runs what it is assigned (the task's real code, taking a
 * drawn virtual time), reports each completion, answers revokes and drops, and fails over to its server's mirror
 * group when the connection is lost. A task it ran for a connection that is gone is not reported. Drawn from the
 * seed, one of three kinds: it claims as {@code cx producer} does ({@link ClaimRule}: a worker runs the best ready
 * child of its task, or a kept task its value completed, and caches another child while it runs alone), or it puts
 * a ready child of a task it ran in its own cache without claiming it, or it does neither. A task dropped while it
 * runs claims nothing after it, as in {@code cx producer}. Drawn too, one task run in 50 may take 30 times as long.
 * Unlike {@code cx producer}, with no mirror left it tries every server it knows, again and again, as a daemon would.
 */
final class SimProducer extends Node implements Pipe.Receiver {
    /** With stragglers, one task run in this many takes {@link #STRAGGLER_FACTOR} times as long. */
    private static final int STRAGGLER_ODDS = 50;
    private static final int STRAGGLER_FACTOR = 30;

    private final int workers;
    private final boolean straggles;
    private final Audit audit;
    private final BodyCodec codec;
    private final List<String> servers;
    private final long minTaskNanos;
    private final long maxTaskNanos;
    private final ArrayDeque<ReadyTask> cache = new ArrayDeque<>();
    private final List<Completion> done = new ArrayList<>();
    private List<String> mirrors = List.of();
    private Pipe.End end;
    private boolean welcomed;
    /** Bumped when the connection is lost: work begun on an older one is not reported. */
    private int generation;
    private int idle;
    private int outstanding;
    private int idleSaid = -1;
    private boolean leaving;
    private long tasksRun;
    /** Whether it caches a ready child of a task it ran itself while its cache holds fewer tasks than its workers. */
    private final boolean cachesChildren;
    /** Whether it claims and keeps as {@code cx producer} does (then {@link #cachesChildren} does not apply). */
    private final boolean claims;
    private final KeptTasks kept = new KeptTasks(4096);
    /** How many of its own children it caches ahead while one computation runs on its server; one beside others. */
    private final int depthAlone;
    private final Set<Long> live = new HashSet<>();
    /** The tasks its workers run now, and those of them the server dropped meanwhile (void runs, as cx producer's). */
    private final List<TaskId> running = new ArrayList<>();
    private final Set<TaskId> voided = new HashSet<>();
    /** For each cached task, when the assignment that began its chain of runs here arrived (for the audit). */
    private final java.util.Map<TaskId, Long> origins = new java.util.HashMap<>();

    SimProducer(World world, String name, int workers, List<String> servers, long minTaskNanos,
                long maxTaskNanos, boolean mayClaim, boolean straggles, Audit audit) {
        super(world, name);
        this.straggles = straggles;
        this.audit = audit;
        this.workers = workers;
        this.idle = workers;
        this.codec = Scenario.codecOf(this);
        this.servers = servers;
        this.minTaskNanos = minTaskNanos;
        this.maxTaskNanos = maxTaskNanos;
        this.cachesChildren = world.random.nextBoolean();
        this.claims = mayClaim && world.random.nextInt(3) > 0;
        this.depthAlone = mayClaim ? world.random.nextInt(1, workers + 2) : 0;
    }

    /** Attaches to the server at {@code address}. */
    void start(String address) {
        world.trace(name + " attaches to " + address);
        connectTo(List.of(address), 0);
    }

    /** Leaves for good, closing its connection as a stopped producer does. */
    void leave() {
        leaving = true;
        world.trace(name + " leaves");
        if (end != null) {
            end.close();
        }
    }

    boolean left() {
        return leaving;
    }

    long tasksRun() {
        return tasksRun;
    }

    private void connectTo(List<String> candidates, int index) {
        if (leaving || crashed()) {
            return;
        }
        if (index >= candidates.size()) {
            // Nobody answered: try every server known, a little later.
            world.after(200_000_000L, this, () -> connectTo(shuffled(servers), 0));
            return;
        }
        world.connect(this, candidates.get(index), connection -> {
            if (connection == null) {
                connectTo(candidates, index + 1);
                return;
            }
            end = connection;
            welcomed = false;
            end.send(new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, name, workers, ""));
        }, this);
    }

    private List<String> shuffled(List<String> addresses) {
        List<String> copy = new ArrayList<>(addresses);
        for (int i = copy.size() - 1; i > 0; i--) {
            java.util.Collections.swap(copy, i, world.random.nextInt(i + 1));
        }
        return copy;
    }

    @Override
    public void receive(Message msg) {
        switch (msg) {
            case Message.Welcome w -> {
                welcomed = true;
                mirrors = List.of(w.mirrors());
            }
            case Message.Assign a -> {
                outstanding = Math.max(0, outstanding - a.tasks().length);
                idleSaid = Math.max(0, idleSaid - a.tasks().length);
                for (ReadyTask t : a.tasks()) {
                    cacheAdd(t, world.now());
                }
            }
            case Message.Drop d -> {
                drop(d.ids());
                kept.drop(d.ids());
                for (TaskId id : d.ids()) {
                    if (running.contains(id)) {
                        voided.add(id);
                    }
                }
            }
            case Message.Revoke r -> end.write(new Message.Released(drop(r.ids()).toArray(TaskId[]::new)));
            case Message.ComputationStarted s -> live.add(s.computation());
            case Message.ComputationEnded e -> {
                cache.removeIf(t -> t.task().id().computation() == e.computation());
                origins.keySet().removeIf(id -> id.computation() == e.computation());
                kept.dropComputation(e.computation());
                live.remove(e.computation());
                if (values() != null) {
                    values().drop(e.computation());
                }
            }
            case Message.Mirrors m -> mirrors = List.of(m.addresses());
            case Message.Code c -> { } // the simulation runs every computation from the class path
            case Message.Keep k -> {
                for (TaskEnvelope e : claims ? k.tasks() : new TaskEnvelope[0]) {
                    kept.keep(e);
                }
            }
            case Message.Inputs in -> kept.forwarded(in.values());
            case Message.Unkeep u -> kept.drop(u.ids());
            case Message.Refused r -> world.trace(name + " refused: " + r.reason());
            default -> throw new IllegalStateException(name + " got an unexpected " + msg.getClass().getSimpleName());
        }
    }

    /** Caches {@code t} unless it holds it already: as {@code cx producer}'s cache, one copy of a task. */
    private void cacheAdd(ReadyTask t, long origin) {
        if (cache.stream().noneMatch(c -> c.task().id().equals(t.task().id()))) {
            cache.add(t);
            origins.put(t.task().id(), origin);
        }
    }

    /** Drops the cached, unstarted copies of {@code ids}; returns those it had. */
    private List<TaskId> drop(TaskId[] ids) {
        Set<TaskId> gone = new HashSet<>(Arrays.asList(ids));
        List<TaskId> dropped = new ArrayList<>();
        cache.removeIf(t -> {
            boolean hit = gone.contains(t.task().id());
            if (hit) {
                dropped.add(t.task().id());
                origins.remove(t.task().id());
            }
            return hit;
        });
        return dropped;
    }

    @Override
    public void readComplete() {
        if (welcomed) {
            startWork();
            speak();
        }
    }

    /** Idle workers take cached tasks; each runs for a drawn time. */
    private void startWork() {
        while (idle > 0 && !cache.isEmpty()) {
            idle--;
            ReadyTask t = cache.poll();
            Long origin = origins.remove(t.task().id());
            runTask(t, origin == null ? world.now() : origin);
        }
    }

    /** @param origin when the server's word that began this chain of runs (an assignment) arrived */
    private void runTask(ReadyTask task, long origin) {
        audit.ran(task.task().id(), name, world.now(), origin);
        running.add(task.task().id());
        long took = straggles && world.random.nextInt(STRAGGLER_ODDS) == 0
                ? world.random.nextLong(STRAGGLER_FACTOR * minTaskNanos, STRAGGLER_FACTOR * maxTaskNanos + 1)
                : world.random.nextLong(minTaskNanos, maxTaskNanos + 1);
        int startedOn = generation;
        world.after(took, this, () -> finished(task, took, startedOn, origin));
    }

    private void finished(ReadyTask task, long took, int startedOn, long origin) {
        tasksRun++;
        ReadyTask next = null;
        running.remove(task.task().id());
        boolean isVoid = voided.remove(task.task().id());
        if (startedOn == generation && welcomed) {
            switch (TaskRunner.decodeAndRun(codec, task)) {
                case TaskRunner.Outcome.Done d -> {
                    Completion c = d.completion();
                    // The measured time is the wall clock's: report the virtual one, or the run is not repeatable.
                    Completion report = new Completion(c.id(), c.spawned(), c.values(), took, took, c.claimed(),
                            c.claimedValue(), c.keeps());
                    if (claims && !isVoid) {
                        int depth = live.size() <= 1 ? depthAlone : Math.min(1, depthAlone);
                        boolean starving = idle > cache.size();
                        ClaimRule.Claim claim = ClaimRule.claim(report, kept, cache.size() < depth && !starving);
                        report = claim.completion();
                        next = claim.next();
                    } else if (cachesChildren && !isVoid && report.bestReadyChild() >= 0 && cache.size() < workers) {
                        report = report.withCachedHere(report.bestReadyChild());
                    }
                    if (report.cachedHere() >= 0) {
                        cacheAdd(new ReadyTask(report.spawned()[report.cachedHere()], new byte[0][]), origin);
                        outstanding = Math.max(0, outstanding - 1); // the server counts it as given
                    }
                    done.add(report);
                }
                case TaskRunner.Outcome.Failed f -> end.write(new Message.TaskFailed(f.id(), f.reason()));
            }
        }
        if (next != null) {
            runTask(next, origin); // the claimed task, on the same worker
        } else {
            idle++;
        }
        if (welcomed) {
            startWork();
            speak();
        }
    }

    /** Sends the completions gathered and asks for what the workers and the cache need. */
    private void speak() {
        if (!done.isEmpty()) {
            end.write(new Message.Completed(done.toArray(Completion[]::new)));
            done.clear();
        }
        int starving = Math.max(0, idle - cache.size());
        int want = 2 * workers - (workers - idle) - cache.size() - outstanding;
        if (want > 0 || starving != idleSaid) {
            int credit = Math.max(0, want);
            outstanding += credit;
            idleSaid = starving;
            end.write(new Message.Request(credit, starving));
        }
        end.flush();
    }

    @Override
    public void closed() {
        generation++;
        welcomed = false;
        cache.clear();
        origins.clear();
        running.clear();
        voided.clear();
        kept.clear();
        live.clear();
        done.clear();
        outstanding = 0;
        idleSaid = -1;
        end = null;
        if (leaving) {
            return;
        }
        List<String> next = shuffled(mirrors.isEmpty() ? servers : mirrors);
        world.trace(name + " lost its server; fails over to one of " + next);
        world.after(world.random.nextLong(1_000_000, 50_000_000), this, () -> connectTo(next, 0));
    }
}
