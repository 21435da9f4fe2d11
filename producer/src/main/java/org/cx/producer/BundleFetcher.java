package org.cx.producer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Sources;

/**
 * A producer's code bundles on their way (paper §4.3): which computations wait for which bundle, their tasks parked
 * until it is here, and the chunks assembled so far. No I/O: it says what to send and which tasks can run or fail.
 * Event loop only; the connection's loss clears it, since the next server says again what its tasks need.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>{@code Code(computation, bundle)} comes before the computation's first task. A bundle this producer holds is
 *       bound at once; otherwise the computation's tasks are parked and the first computation waiting for the
 *       bundle fetches it ({@link #code}).</li>
 *   <li>Chunks are assembled ({@link #chunk}); the whole bundle is verified against its hash off the event loop.</li>
 *   <li>A verified bundle binds every computation waiting for it, and their parked tasks go to the cache
 *       ({@link #arrived}); a bundle that cannot be had fails them, saying why ({@link #unavailable}).</li>
 * </ol>
 */
final class BundleFetcher {

    private final BodyCodecs codecs;
    private final String producer;
    /** Tasks of computations whose bundle is being fetched, by computation. */
    private final Map<Long, List<ReadyTask>> parked = new HashMap<>();
    /** Computations waiting for each bundle being fetched, as code or as shared data, by hash. */
    private final Map<String, List<Binding>> waiting = new HashMap<>();
    /** How many of its bundles each computation with parked tasks still waits for. */
    private final Map<Long, Integer> missing = new HashMap<>();
    private final Map<String, BundleAssembly> assemblies = new HashMap<>();
    private final AtomicLong fetches = new AtomicLong();
    private volatile int parkedCount;

    BundleFetcher(BodyCodecs codecs, String producer) {
        this.codecs = codecs;
        this.producer = producer;
    }

    /** A computation waiting for a bundle: its code, or its shared data. */
    private record Binding(long computation, boolean data) {
    }

    /**
     * Computation {@code computation} runs from {@code sources} ({@link Sources}: code, and shared data if any):
     * binds what is here; returns the fetches to send for the rest (none if bound now or already asked for).
     */
    List<Message.FetchBundle> code(long computation, String sources) {
        List<Message.FetchBundle> fetch = new ArrayList<>(2);
        String code = Sources.code(sources);
        String data = Sources.data(sources);
        if (!codecs.bind(computation, code)) {
            await(new Binding(computation, false), code, fetch);
        }
        if (!codecs.bindData(computation, data)) {
            await(new Binding(computation, true), data, fetch);
        }
        return fetch;
    }

    private void await(Binding binding, String hash, List<Message.FetchBundle> fetch) {
        parked.putIfAbsent(binding.computation(), new ArrayList<>());
        missing.merge(binding.computation(), 1, Integer::sum);
        List<Binding> bindings = waiting.computeIfAbsent(hash, h -> new ArrayList<>());
        bindings.add(binding);
        if (bindings.size() == 1) { // the first to wait for it asks for it
            fetches.incrementAndGet();
            fetch.add(new Message.FetchBundle(hash));
        }
    }

    /** Parks {@code task} if its computation's code is on the way; false if it can run now. */
    boolean park(ReadyTask task) {
        List<ReadyTask> tasks = parked.get(task.task().id().computation());
        if (tasks == null) {
            return false;
        }
        tasks.add(task);
        parkedCount++;
        return true;
    }

    /**
     * A chunk arrived: the whole bundle's bytes and signature once the last chunk is in, else null (also for a
     * bundle nobody waits for any more).
     *
     * @throws CodeBundle.InvalidBundleException if the chunks do not fit together
     */
    Assembled chunk(Message.BundleChunk chunk) throws CodeBundle.InvalidBundleException {
        String hash = chunk.bundle();
        if (!waiting.containsKey(hash)) {
            return null;
        }
        BundleAssembly assembly = assemblies.computeIfAbsent(hash, BundleAssembly::new);
        byte[] all;
        try {
            all = assembly.addBytes(chunk);
        } catch (CodeBundle.InvalidBundleException e) {
            assemblies.remove(hash);
            throw e;
        }
        if (all == null) {
            return null;
        }
        assemblies.remove(hash);
        return new Assembled(all, assembly.signed());
    }

    /** A bundle's bytes and signature, not yet checked. */
    record Assembled(byte[] bytes, org.cx.security.CodeSigning.Signed signed) {
    }

    /**
     * A verified bundle is here: binds the computations waiting for it; the parked tasks of those that now have all
     * their bundles can run.
     */
    List<ReadyTask> arrived(CodeBundle bundle) {
        List<Binding> bindings = waiting.remove(bundle.hash());
        List<ReadyTask> ready = new ArrayList<>();
        if (bindings == null) {
            return ready;
        }
        for (Binding b : bindings) {
            if (b.data()) {
                codecs.add(bundle);
                codecs.bindData(b.computation(), bundle.hash());
            } else {
                codecs.bind(b.computation(), bundle);
            }
            if (missing.merge(b.computation(), -1, Integer::sum) <= 0) {
                missing.remove(b.computation());
                List<ReadyTask> tasks = parked.remove(b.computation());
                if (tasks != null) {
                    ready.addAll(tasks);
                }
            }
        }
        parkedCount = countParked();
        return ready;
    }

    /** Bundle {@code hash} cannot be had: the failures of every task waiting for it, each saying why. */
    List<Message.TaskFailed> unavailable(String hash, String reason) {
        List<Binding> bindings = waiting.remove(hash);
        List<Message.TaskFailed> failed = new ArrayList<>();
        if (bindings == null) {
            return failed;
        }
        for (Binding b : bindings) {
            for (ReadyTask t : parked.getOrDefault(b.computation(), List.of())) {
                failed.add(new Message.TaskFailed(t.task().id(), "producer " + producer + " cannot load the "
                        + (b.data() ? "shared data" : "code") + " of task " + t.task().id() + ": " + reason));
            }
            parked.remove(b.computation());
            missing.remove(b.computation());
        }
        parkedCount = countParked();
        return failed;
    }

    /** Computation {@code computation} ended: its parked tasks are gone. */
    void ended(long computation) {
        parked.remove(computation);
        missing.remove(computation);
    }

    /** The connection is gone: the next server says again which code its tasks need. */
    void clear() {
        parked.clear();
        waiting.clear();
        missing.clear();
        assemblies.clear();
        parkedCount = 0;
    }

    /** Tasks waiting for their code (any thread). */
    int parkedCount() {
        return parkedCount;
    }

    /** Bundles fetched from the server since start (any thread). */
    long fetches() {
        return fetches.get();
    }

    private int countParked() {
        int n = 0;
        for (List<ReadyTask> tasks : parked.values()) {
            n += tasks.size();
        }
        return n;
    }
}
