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
    /** Computations waiting for each bundle being fetched, by hash. */
    private final Map<String, List<Long>> waiting = new HashMap<>();
    private final Map<String, BundleAssembly> assemblies = new HashMap<>();
    private final AtomicLong fetches = new AtomicLong();
    private volatile int parkedCount;

    BundleFetcher(BodyCodecs codecs, String producer) {
        this.codecs = codecs;
        this.producer = producer;
    }

    /** Computation {@code computation} runs from {@code bundle}: null if bound now, else the fetch to send (or not). */
    Message.FetchBundle code(long computation, String bundle) {
        if (codecs.bind(computation, bundle)) {
            return null;
        }
        parked.putIfAbsent(computation, new ArrayList<>());
        List<Long> computations = waiting.computeIfAbsent(bundle, h -> new ArrayList<>());
        computations.add(computation);
        if (computations.size() > 1) {
            return null; // already asked for
        }
        fetches.incrementAndGet();
        return new Message.FetchBundle(bundle);
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

    /** A verified bundle is here: binds the computations waiting for it; their parked tasks can run. */
    List<ReadyTask> arrived(CodeBundle bundle) {
        List<Long> computations = waiting.remove(bundle.hash());
        List<ReadyTask> ready = new ArrayList<>();
        if (computations == null) {
            return ready;
        }
        for (long computation : computations) {
            codecs.bind(computation, bundle);
            List<ReadyTask> tasks = parked.remove(computation);
            if (tasks != null) {
                ready.addAll(tasks);
            }
        }
        parkedCount = countParked();
        return ready;
    }

    /** Bundle {@code hash} cannot be had: the failures of every task waiting for it, each saying why. */
    List<Message.TaskFailed> unavailable(String hash, String reason) {
        List<Long> computations = waiting.remove(hash);
        List<Message.TaskFailed> failed = new ArrayList<>();
        if (computations == null) {
            return failed;
        }
        for (long computation : computations) {
            for (ReadyTask t : parked.getOrDefault(computation, List.of())) {
                failed.add(new Message.TaskFailed(t.task().id(), "producer " + producer + " cannot load the code of "
                        + "task " + t.task().id() + ": " + reason));
            }
            parked.remove(computation);
        }
        parkedCount = countParked();
        return failed;
    }

    /** Computation {@code computation} ended: its parked tasks are gone. */
    void ended(long computation) {
        parked.remove(computation);
    }

    /** The connection is gone: the next server says again which code its tasks need. */
    void clear() {
        parked.clear();
        waiting.clear();
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
