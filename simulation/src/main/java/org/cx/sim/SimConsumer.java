package org.cx.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.api.spi.TaskBinding;
import org.cx.wire.BodyCodec;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireConfig;

/**
 * A consumer in the simulation, speaking its side of the protocol as the consumer library does: submits
 * computations, collects their results, and when its server is lost goes to one of the server's mirrors and asks
 * for the results there (asking again for a while if the new server does not know a computation yet). A submission
 * that was not accepted before the connection was lost is submitted again, as its user would. A job may be cancelled
 * a while after it was accepted; a cancellation not answered is asked again after a fail-over, as the library does.
 */
final class SimConsumer extends Node implements Pipe.Receiver {
    /** How long, after a fail-over, a server that does not know a computation is asked again. */
    private static final long RECOLLECT_FOR_NANOS = 30_000_000_000L;

    /**
     * One computation: its root, what its result must be, how many tasks it has, and how long after it was accepted
     * its consumer cancels it (-1: never).
     */
    record Job(String name, Supplier<Task> root, Object expected, long tasks, long cancelAfterNanos) {
        Job(String name, Supplier<Task> root, Object expected, long tasks) {
            this(name, root, expected, tasks, -1);
        }
    }

    /** What became of a job: its computation, its value or failure. */
    static final class Outcome {
        final Job job;
        long computation;
        Object value;
        String failure;
        boolean done;

        Outcome(Job job) {
            this.job = job;
        }
    }

    private final BodyCodec codec;
    private final List<String> servers;
    private final Map<Long, Outcome> submitting = new LinkedHashMap<>();
    private final Map<Long, Outcome> running = new LinkedHashMap<>();
    /** Computations asked to be cancelled whose cancellation was not answered yet. */
    private final java.util.Set<Long> cancelling = new java.util.LinkedHashSet<>();
    private final Audit audit;
    private final List<Outcome> outcomes = new ArrayList<>();
    private List<String> mirrors = List.of();
    private Pipe.End end;
    private long requestIds;
    private int planned;
    private long recollectUntil;
    /** Where to look for the computations after a lost connection, in order; and which one is tried now. */
    private List<String> candidates = List.of();
    private int candidate;
    private String server;

    SimConsumer(World world, String name, List<String> servers, Audit audit) {
        super(world, name);
        this.audit = audit;
        this.codec = Scenario.codecOf(this);
        this.servers = servers;
    }

    List<Outcome> outcomes() {
        return outcomes;
    }

    /** Whether every job planned has been submitted and has a result or a failure. */
    boolean allDone() {
        return outcomes.size() == planned && outcomes.stream().allMatch(o -> o.done);
    }

    /** Says how many jobs this consumer will submit. */
    void plan(int jobs) {
        planned = jobs;
    }

    void connect(String address) {
        server = address;
        world.connect(this, address, connection -> {
            if (connection == null) {
                world.after(100_000_000L, this, () -> connect(nextCandidate()));
                return;
            }
            end = connection;
            end.write(new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.CONSUMER, name, 0));
            for (Outcome o : running.values()) {
                end.write(new Message.Collect(o.computation));
            }
            for (long id : cancelling) {
                end.write(new Message.Cancel(id));
            }
            for (Map.Entry<Long, Outcome> e : submitting.entrySet()) {
                end.write(submission(e.getKey(), e.getValue().job));
            }
            end.flush();
        }, this);
    }

    /** The next server to try: the next candidate after a lost connection, else any server. */
    private String nextCandidate() {
        if (candidates.isEmpty()) {
            return servers.get(world.random.nextInt(servers.size()));
        }
        candidate = (candidate + 1) % candidates.size();
        return candidates.get(candidate);
    }

    /** Submits {@code job} now (or as soon as connected). */
    void submit(Job job) {
        Outcome o = new Outcome(job);
        outcomes.add(o);
        long requestId = ++requestIds;
        submitting.put(requestId, o);
        world.trace(name + " submits " + job.name());
        if (end != null) {
            end.send(submission(requestId, job));
        }
    }

    private Message.Submit submission(long requestId, Job job) {
        Task root = job.root().get();
        TaskBinding.bind(root, TaskId.root(0), Continuation.CONSUMER, null);
        TaskEnvelope envelope = new TaskEnvelope(TaskId.root(0), Continuation.CONSUMER, root.arity(),
                root.priority(), root.executeOnServer(), codec.encode(root));
        return new Message.Submit(requestId, envelope, CodeBundle.CLASS_PATH);
    }

    @Override
    public void receive(Message msg) {
        switch (msg) {
            case Message.Welcome w -> mirrors = List.of(w.mirrors());
            case Message.Mirrors m -> mirrors = List.of(m.addresses());
            case Message.Accepted a -> {
                Outcome o = submitting.remove(a.requestId());
                if (o != null) {
                    o.computation = a.computation();
                    running.put(a.computation(), o);
                    world.trace(name + ": " + o.job.name() + " is computation " + Long.toHexString(a.computation()));
                    if (o.job.cancelAfterNanos() >= 0) {
                        world.after(o.job.cancelAfterNanos(), this, () -> cancel(o));
                    }
                }
            }
            case Message.Result r -> {
                Outcome o = running.remove(r.computation());
                if (o != null) {
                    o.value = codec.decode(r.value());
                    o.done = true;
                    world.trace(name + ": " + o.job.name() + " = " + show(o.value));
                }
                end.write(new Message.Collected(r.computation()));
            }
            case Message.Failed f -> {
                boolean cancelled = f.taskId().isEmpty() && f.reason().startsWith("cancelled");
                if (cancelled && cancelling.remove(f.computation())) {
                    audit.cancelled(f.computation(), world.now());
                }
                if (!cancelled && f.taskId().isEmpty() && world.now() < recollectUntil
                        && running.containsKey(f.computation())) {
                    // This server does not know it (yet): the next candidate may, or this one a little later.
                    world.after(100_000_000L, this, () -> {
                        if (end != null && running.containsKey(f.computation())) {
                            if (candidates.size() > 1) {
                                candidate = (candidate + 1) % candidates.size();
                                Pipe.End old = end;
                                end = null;
                                old.close();
                            } else {
                                end.send(new Message.Collect(f.computation()));
                            }
                        }
                    });
                    return;
                }
                Outcome o = running.remove(f.computation());
                if (o != null) {
                    o.failure = f.reason();
                    o.done = true;
                    world.trace(name + ": " + o.job.name() + " failed: " + f.reason());
                }
            }
            case Message.CancelAnswer a -> {
                if (a.refusal().startsWith("no computation") && world.now() < recollectUntil) {
                    // this server does not know it yet: ask again a little later, as the library does
                    world.after(100_000_000L, this, () -> {
                        if (end != null && cancelling.contains(a.computation())) {
                            end.send(new Message.Cancel(a.computation()));
                        }
                    });
                } else if (cancelling.remove(a.computation())) {
                    world.trace(name + ": cancelling " + Long.toHexString(a.computation()) + ": "
                            + (a.refusal().isEmpty() ? "done" : a.refusal()));
                    if (a.refusal().isEmpty()) {
                        audit.cancelled(a.computation(), world.now());
                    }
                }
            }
            case Message.SubmitRefused r -> {
                Outcome o = submitting.remove(r.requestId());
                if (o != null) {
                    o.failure = "refused: " + r.reason();
                    o.done = true;
                }
            }
            case Message.Refused r -> world.trace(name + " refused: " + r.reason());
            default -> throw new IllegalStateException(name + " got an unexpected " + msg.getClass().getSimpleName());
        }
    }

    /** Asks to cancel {@code o}'s computation, unless it is over. */
    private void cancel(Outcome o) {
        if (o.done) {
            return;
        }
        world.trace(name + " cancels " + o.job.name());
        cancelling.add(o.computation);
        if (end != null) {
            end.send(new Message.Cancel(o.computation));
        }
    }

    private static String show(Object value) {
        return value instanceof byte[] b ? Spread.show(b) : String.valueOf(value);
    }

    @Override
    public void readComplete() {
        if (end != null) {
            end.flush();
        }
    }

    /**
     * The connection is gone: try the same server first (only the connection may have broken), then its mirrors,
     * then every other server, in turn, until one knows each computation. (The consumer library stops after the
     * mirrors; its user can collect later by id.)
     */
    @Override
    public void closed() {
        boolean moving = end == null; // closed here to try the next candidate
        end = null;
        if (allDone()) {
            return;
        }
        if (!moving) {
            List<String> next = new ArrayList<>();
            next.add(server);
            next.addAll(mirrors);
            next.addAll(servers); // its user knows the network's servers: the last resort when the mirrors fail too
            candidates = List.copyOf(new java.util.LinkedHashSet<>(next));
            candidate = 0;
            recollectUntil = world.now() + RECOLLECT_FOR_NANOS;
        }
        String address = candidates.get(candidate);
        world.trace(name + " lost its server; goes to " + address);
        world.after(world.random.nextLong(1_000_000, 50_000_000), this, () -> connect(address));
    }
}
