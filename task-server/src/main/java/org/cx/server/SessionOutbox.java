package org.cx.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cx.api.TaskId;
import org.cx.wire.Message;
import org.cx.wire.PendingReleases;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.ValueRef;
import org.cx.wire.ValueStore;

/** Gathers the scheduler's output per connection; {@link #flush()} sends one message per kind per connection. */
final class SessionOutbox implements Outbox {

    private final ServerCore node;
    /** The most bytes of tasks and inputs one Assign carries: half a frame. */
    private final long assignBytes;
    private final Map<ProducerState, List<ReadyTask>> assigns = new LinkedHashMap<>();
    private final Map<ProducerState, List<TaskId>> drops = new LinkedHashMap<>();
    private final Map<ProducerState, List<TaskEnvelope>> keeps = new LinkedHashMap<>();
    private final Map<ProducerState, List<ValueEnvelope>> inputs = new LinkedHashMap<>();
    private final Map<ProducerState, List<TaskId>> unkeeps = new LinkedHashMap<>();
    /** Computations that run here, for producers new here: sent before any task. */
    private final Map<ProducerState, List<Long>> runs = new LinkedHashMap<>();
    private final List<Map.Entry<ProducerState, TaskId[]>> revokes = new ArrayList<>();
    /** Connections written to since the last flush. */
    private final Set<PeerConnection> dirty = new LinkedHashSet<>();
    /** Values the server's store let go that its producers have yet to hear of. */
    private final PendingReleases letGo = new PendingReleases();

    SessionOutbox(ServerCore node, int maxFrameBytes, ValueStore values) {
        this.node = node;
        this.assignBytes = maxFrameBytes / 2;
        if (values != null) {
            values.onRelease(letGo);
        }
    }

    @Override
    public void assign(ProducerState producer, ReadyTask task) {
        batch(assigns, producer, task);
        if (node.timeline().enabled()) {
            node.timeline().record("assigned", task.task().id(), producer.name());
        }
    }

    @Override
    public void drop(ProducerState producer, TaskId task) {
        batch(drops, producer, task);
    }

    @Override
    public void keep(ProducerState producer, TaskEnvelope task, ValueEnvelope[] known) {
        batch(keeps, producer, task);
        for (ValueEnvelope v : known) {
            input(producer, v);
        }
    }

    @Override
    public void unkeep(ProducerState producer, TaskId task) {
        batch(unkeeps, producer, task);
    }

    @Override
    public void input(ProducerState producer, ValueEnvelope value) {
        batch(inputs, producer, value);
    }

    private static <T> void batch(Map<ProducerState, List<T>> batches, ProducerState producer, T item) {
        batches.computeIfAbsent(producer, p -> new ArrayList<>()).add(item);
    }

    @Override
    public void revoke(ProducerState producer, TaskId[] tasks) {
        revokes.add(Map.entry(producer, tasks));
        if (node.timeline().enabled()) {
            for (TaskId id : tasks) {
                node.timeline().record("revoked", id, producer.name());
            }
        }
    }

    @Override
    public void computationEnded(long computation, boolean atOrigin) {
        if (atOrigin) {
            node.networkInternals().computationEnded(computation);
        }
        // Once the change that ended it commits, like the release of the values its last task read: a producer hears
        // of that release first, and lets those values go rather than dropping them with the computation.
        node.networkInternals().afterCommit(() -> tellProducers(computation));
    }

    @Override
    public void reprioritized(long computation, int priority) {
        node.networkInternals().tellServers(new Message.Prioritize(computation, priority));
    }

    @Override
    public void computationRuns(ProducerState producer, long computation) {
        batch(runs, producer, computation); // sent at the end of the burst: after the producer's Welcome
    }

    @Override
    public void computationStarted(long computation) {
        for (PeerSession session : node.sessions().values()) {
            if (session instanceof PeerSession.ProducerSession p) {
                p.connection().write(new Message.ComputationStarted(computation));
                dirty.add(p.connection());
            }
        }
    }

    void tellProducers(long computation) {
        tellReleases(); // what the store let go meanwhile goes first
        for (PeerSession session : node.sessions().values()) {
            if (session instanceof PeerSession.ProducerSession p) {
                p.connection().write(new Message.ComputationEnded(computation));
                p.producer.codeSent.remove(computation);
                dirty.add(p.connection());
            }
        }
        node.code().ended(computation);
    }

    /**
     * Once what was recorded so far commits, lets {@code values} go here and tells the servers this one has links to,
     * each only if it holds one of them; the producers hear of it from {@link #tellReleases}.
     */
    @Override
    public void valuesConsumed(List<ValueRef> values) {
        ValueStore store = node.values();
        if (store == null) {
            return;
        }
        node.networkInternals().afterCommit(() -> {
            values.forEach(store::release); // the producers hear at the end of the burst (tellReleases)
            node.networkInternals().tellLinks(new Message.ValuesReleased(values.stream().map(ValueRef::bytes)
                    .toArray(byte[][]::new)));
        });
    }

    /**
     * As {@link Outbox#valuesConsumed}, for values routed to another server that acknowledged them: once recorded, one
     * copy of each goes here (a value that came back meanwhile, with a task that reads it, stays), and no other server
     * is told.
     */
    void valuesHandedOn(List<ValueRef> values) {
        ValueStore store = node.values();
        if (store != null) {
            node.networkInternals().afterCommit(() -> values.forEach(store::letGo));
        }
    }

    /**
     * Tells the producers of the values this server let go since the last call, however it came to (read here, handed
     * on, or released by the server that read them), each producer only if it holds one of them. Sent with the next
     * flush.
     */
    void tellReleases() {
        Message.ValuesReleased released = letGo.drain();
        if (released == null) {
            return;
        }
        for (PeerSession session : node.sessions().values()) {
            if (session instanceof PeerSession.ProducerSession p) {
                p.connection().write(released);
                dirty.add(p.connection());
            }
        }
    }

    @Override
    public void codeNeeded(long computation, String bundle) {
        node.code().need(computation, bundle);
    }

    @Override
    public void result(ConsumerHandle consumer, long computation, byte[] value, ComputationSummary summary) {
        toConsumer(consumer, new Message.Result(computation, value, summary.tasks(), summary.executions(),
                summary.t1Nanos(), summary.wallNanos()));
    }

    @Override
    public void failed(ConsumerHandle consumer, long computation, String taskId, String reason) {
        toConsumer(consumer, new Message.Failed(computation, taskId, reason));
    }

    @Override
    public void accepted(ConsumerHandle consumer, long requestId, long computation) {
        toConsumer(consumer, new Message.Accepted(requestId, computation));
    }

    /** What a consumer is told waits until the mirrors have the change it reports. */
    private void toConsumer(ConsumerHandle consumer, Message message) {
        node.networkInternals().afterCommit(() -> {
            PeerSession session = node.sessions().get(consumer.peerId());
            if (session != null) {
                session.connection().send(message);
            }
        });
    }

    @Override
    public void stored(TaskId id, String how) {
        node.stored(id, how);
    }

    @Override
    public void applied(TaskId id) {
        node.applied(id);
    }

    @Override
    public void route(int server, RoutedPayload payload) {
        node.networkInternals().route(server, payload);
    }

    @Override
    public void runOnServer(ReadyTask task) {
        node.runOnServer(task);
    }

    void flush() {
        for (var e : runs.entrySet()) {
            for (long computation : e.getValue()) {
                send(e.getKey(), new Message.ComputationStarted(computation));
            }
        }
        runs.clear();
        // Copies to keep before their inputs; neither touches the producer's cache of tasks to run.
        for (var e : keeps.entrySet()) {
            for (TaskEnvelope[] part : inFrames(e.getValue(), t -> 128L + t.body().length, assignBytes,
                    TaskEnvelope[]::new)) {
                send(e.getKey(), new Message.Keep(part));
            }
        }
        for (var e : inputs.entrySet()) {
            for (ValueEnvelope[] part : inFrames(e.getValue(), v -> 128L + v.value().length, assignBytes,
                    ValueEnvelope[]::new)) {
                send(e.getKey(), new Message.Inputs(part));
            }
        }
        for (var e : unkeeps.entrySet()) {
            send(e.getKey(), new Message.Unkeep(e.getValue().toArray(TaskId[]::new)));
        }
        for (var e : assigns.entrySet()) {
            tellCode(e.getKey(), e.getValue());
            List<ReadyTask> tasks = e.getValue();
            if (tasks.size() == 1) {
                send(e.getKey(), new Message.Assign(new ReadyTask[] {tasks.get(0)}));
                continue;
            }
            for (ReadyTask[] part : inFrames(tasks, assignBytes)) {
                send(e.getKey(), new Message.Assign(part));
            }
        }
        for (var e : drops.entrySet()) {
            send(e.getKey(), new Message.Drop(e.getValue().toArray(TaskId[]::new)));
        }
        for (var e : revokes) {
            send(e.getKey(), new Message.Revoke(e.getValue()));
        }
        assigns.clear();
        drops.clear();
        keeps.clear();
        inputs.clear();
        unkeeps.clear();
        revokes.clear();
        for (PeerConnection connection : dirty) {
            connection.flush();
        }
        dirty.clear();
    }

    /**
     * {@code tasks} in groups whose bodies and inputs take at most {@code limit} bytes each (a task larger than that
     * goes alone), in order: one Assign per group, each within a frame.
     */
    static List<ReadyTask[]> inFrames(List<ReadyTask> tasks, long limit) {
        return inFrames(tasks, ReadyTask::bytes, limit, ReadyTask[]::new);
    }

    /** {@code items} in groups of at most {@code limit} bytes each by {@code size} (a larger item alone), in order. */
    static <T> List<T[]> inFrames(List<T> items, java.util.function.ToLongFunction<T> size, long limit,
                                  java.util.function.IntFunction<T[]> array) {
        List<T[]> parts = new ArrayList<>(1);
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < items.size(); i++) {
            long n = size.applyAsLong(items.get(i));
            if (i > from && bytes + n > limit) {
                parts.add(items.subList(from, i).toArray(array));
                from = i;
                bytes = 0;
            }
            bytes += n;
        }
        if (from < items.size()) {
            parts.add(items.subList(from, items.size()).toArray(array));
        }
        return parts;
    }

    /** Before a producer's first task of a computation, which bundle its code is in and whose it is. */
    private void tellCode(ProducerState producer, List<ReadyTask> tasks) {
        for (ReadyTask t : tasks) {
            long computation = t.task().id().computation();
            if (producer.codeSent.add(computation)) {
                String bundle = node.scheduler().bundleOf(computation);
                String owner = node.scheduler().ownerOf(computation);
                boolean validated = node.scheduler().quorumOf(computation) > 1;
                org.cx.security.Tls tls = node.config().tls();
                if (tls == null || owner.isEmpty()) {
                    send(producer, new Message.Code(computation, bundle == null ? "" : bundle, owner, validated));
                } else {
                    // The producer may act for the owner in the file service while it runs these tasks.
                    SignedGrant grant = grantFor(tls, owner, producer.owner);
                    send(producer, new Message.Code(computation, bundle == null ? "" : bundle, owner, validated,
                            grant.text(), grant.signed().signer(), grant.signed().signature()));
                }
            }
        }
    }

    /** A file grant and its signature. */
    private record SignedGrant(String text, org.cx.security.CodeSigning.Signed signed, long issuedSeconds) {
    }

    /** Grants signed here, by owner and producer: each is signed again once a day, not for every computation. */
    private final java.util.Map<String, SignedGrant> grants = new java.util.concurrent.ConcurrentHashMap<>();

    private SignedGrant grantFor(org.cx.security.Tls tls, String owner, String producer) {
        long now = System.currentTimeMillis() / 1000;
        return grants.compute(owner + "\n" + producer, (k, g) -> {
            if (g != null && now - g.issuedSeconds() < 86_400) {
                return g;
            }
            org.cx.security.FileGrant grant = new org.cx.security.FileGrant(owner, producer, now);
            return new SignedGrant(grant.text(), grant.sign(tls), now);
        });
    }

    private void send(ProducerState producer, Message message) {
        PeerSession session = node.sessions().get(producer.peerId);
        if (session != null) {
            session.connection().write(message);
            dirty.add(session.connection());
        }
    }
}

