package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.security.Tls;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import org.cx.wire.Sources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Code bundles on a task server (paper §4.3): the consumer uploads a bundle to the server it submits to; every
 * other server fetches a bundle it lacks from upstream (its parent; the two roots from each other), once, however
 * many producers and children ask; producers fetch from their own server. A consumer may attach to any server: once
 * a computation runs from a bundle uploaded to a server below the root, that server pushes it up, hop by hop, to
 * the root, and a root asked for a bundle it does not have yet waits {@link #PUSH_WAIT_NANOS} for it to come up.
 * Only servers running {@code executeOnServer} tasks ever load a class from a bundle. Event loop only.
 */
final class CodeService {
    private static final Logger LOG = LoggerFactory.getLogger(CodeService.class);

    /** How to reach the server this one fetches bundles from. */
    interface Upstream {
        /** The server id to fetch from (the parent; the primary root for the secondary), or -1 for the root. */
        int upstream();

        void send(int server, Message message);
    }

    private final BodyCodecs codecs;
    private final Upstream upstream;
    private final String name;
    private final Tls trust;
    /** Bundles being received: uploads from consumers and answers from upstream, by hash. */
    private final Map<String, BundleAssembly> incoming = new HashMap<>();
    /** Connections (producers, child servers) waiting for a bundle, by hash. */
    private final Map<String, List<PeerConnection>> waiting = new HashMap<>();
    /** Computations known here whose code bundle has not arrived yet, by hash. */
    private final Map<String, List<Long>> unbound = new HashMap<>();
    /** Computations known here whose shared data bundle has not arrived yet, by hash. */
    private final Map<String, List<Long>> unboundData = new HashMap<>();
    /** Actions waiting for a bundle (executeOnServer tasks), by hash. */
    private final Map<String, List<Runnable>> arrivals = new HashMap<>();
    /** Fetches under way: hash → the server asked. */
    private final Map<String, Integer> fetching = new HashMap<>();
    /** Uploads that failed verification, by hash, with the reason; the next Submit naming it is refused. */
    private final Map<String, String> rejected = new HashMap<>();
    /** Bundles being pushed up to this server from below, to be pushed on once complete. */
    private final java.util.Set<String> pushing = new java.util.HashSet<>();
    /** At the root: bundles asked for that are not here, hash → since when; a push from below may bring them. */
    private final Map<String, Long> awaitingPush = new java.util.LinkedHashMap<>();
    /** How long a root waits for a bundle it was asked for to be pushed up before it says it is nowhere. */
    static final long PUSH_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    /** Uploads that arrived and no computation runs from yet: hash → when, in arrival order. */
    private final Map<String, Long> uploadedUnused = new java.util.LinkedHashMap<>();
    private final java.util.function.LongSupplier clock;
    /** How long an upload waits for the submission that runs from it before it is dropped. */
    static final long UPLOAD_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
    /** Bytes of uploads arriving or waiting for their submissions that one server holds at most. */
    static final long MAX_WAITING_UPLOAD_BYTES = 1L << 30;
    /** Of those, what one user's uploads may hold: two of the largest bundles. */
    static final long MAX_WAITING_UPLOAD_BYTES_PER_USER = 2L * BundleAssembly.MAX_BYTES;
    /** Who uploaded each bundle arriving or waiting for its submission (empty on a plain network). */
    private final Map<String, String> uploader = new HashMap<>();

    // ---- what crossed the wire (JMX, tests, benchmarks)
    long uploadsReceived;
    long fetchesSent;
    long bundlesServed;

    /**
     * @param trust checks that a user of the network signed each bundle; null on plain connections (unsigned code)
     * @param clock the server's clock, in nanoseconds
     */
    CodeService(BodyCodecs codecs, Upstream upstream, String name, Tls trust, java.util.function.LongSupplier clock) {
        this.trust = trust;
        this.clock = clock;
        this.codecs = codecs;
        this.upstream = upstream;
        this.name = name;
    }

    /** Whether bundle {@code hash}, or every bundle of a computation's {@link Sources}, is here. */
    boolean has(String hashOrSources) {
        for (String hash : Sources.bundles(hashOrSources)) {
            if (!codecs.has(hash)) {
                return false;
            }
        }
        return true;
    }

    /** The first bundle of {@code sources} that is not here, or null. */
    String missing(String sources) {
        for (String hash : Sources.bundles(sources)) {
            if (!codecs.has(hash)) {
                return hash;
            }
        }
        return null;
    }

    /** Why the upload of {@code hash} was refused, once; null if it was not. */
    String takeRejection(String hash) {
        return rejected.remove(hash);
    }

    /** A chunk uploaded by a consumer of user {@code owner} (empty on a plain network). */
    void upload(Message.BundleChunk chunk, String owner) {
        if (chunk.offset() == 0) {
            uploadsReceived++;
            boolean fresh = !has(chunk.bundle()) && !incoming.containsKey(chunk.bundle());
            long waiting = waitingUploadBytes(null);
            long waitingForUser = owner.isEmpty() ? 0 : waitingUploadBytes(owner);
            if (fresh && waiting + chunk.total() > MAX_WAITING_UPLOAD_BYTES) {
                rejected.put(chunk.bundle(), "uploads arriving or waiting for their submissions hold "
                        + (waiting >> 20) + " MiB on this server, its limit being " + (MAX_WAITING_UPLOAD_BYTES >> 20)
                        + " MiB: submit what was uploaded, or try again in a minute");
                return;
            }
            if (fresh && waitingForUser + chunk.total() > MAX_WAITING_UPLOAD_BYTES_PER_USER) {
                rejected.put(chunk.bundle(), "user " + owner + "'s uploads arriving or waiting for their submissions "
                        + "hold " + (waitingForUser >> 20) + " MiB on this server, a user's limit being "
                        + (MAX_WAITING_UPLOAD_BYTES_PER_USER >> 20) + " MiB: submit what was uploaded, or try again "
                        + "in a minute");
                return;
            }
            if (fresh) {
                uploader.put(chunk.bundle(), owner);
            }
        }
        if (rejected.containsKey(chunk.bundle())) {
            return; // the rest of a refused upload
        }
        receive(chunk, true);
    }

    /** Bytes held by uploads being received and by uploads no computation runs from yet: all, or one user's. */
    private long waitingUploadBytes(String owner) {
        long bytes = 0;
        for (Map.Entry<String, BundleAssembly> a : incoming.entrySet()) {
            if (owner == null || owner.equals(uploader.get(a.getKey()))) {
                bytes += a.getValue().total();
            }
        }
        for (String hash : uploadedUnused.keySet()) {
            CodeBundle b = codecs.bundle(hash);
            if (b != null && (owner == null || owner.equals(uploader.get(hash)))) {
                bytes += b.size();
            }
        }
        return bytes;
    }

    /**
     * Drops uploads that no submission used within {@link #UPLOAD_WAIT_NANOS}; at the root, gives up on bundles
     * that were not pushed up within {@link #PUSH_WAIT_NANOS} of being asked for.
     */
    void expireUploads(long nowNanos) {
        for (var it = awaitingPush.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (nowNanos - e.getValue() <= PUSH_WAIT_NANOS) {
                break; // in order of asking: the rest are younger
            }
            it.remove();
            unavailable(e.getKey(), "code bundle " + CodeBundle.shortHash(e.getKey()) + " is on no server (the "
                    + "consumer must upload it with its submission)");
        }
        for (var it = uploadedUnused.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (nowNanos - e.getValue() <= UPLOAD_WAIT_NANOS) {
                break; // in arrival order: the rest are younger
            }
            it.remove();
            uploader.remove(e.getKey());
            codecs.unloadIfUnused(e.getKey());
        }
    }

    /**
     * A computation submitted here now runs from {@code hash}: it no longer waits to be used; if it was uploaded
     * here and this server is not the root, it goes up to the root, whence the tree fetches it.
     */
    void used(String hash) {
        boolean uploadedHere = uploadedUnused.remove(hash) != null;
        uploader.remove(hash);
        if (uploadedHere) {
            pushUp(hash);
        }
    }

    private void pushUp(String hash) {
        int to = upstream.upstream();
        CodeBundle bundle = codecs.bundle(hash);
        if (to >= 0 && bundle != null) {
            for (Message.BundleChunk chunk : BundleAssembly.chunks(bundle)) {
                upstream.send(to, chunk);
            }
        }
    }

    /** A chunk from another server: answering this server's fetch, or pushed up from below. */
    void fromServer(Message.BundleChunk chunk) {
        String hash = chunk.bundle();
        if (chunk.offset() == 0 && !fetching.containsKey(hash) && !incoming.containsKey(hash) && !has(hash)) {
            pushing.add(hash);
        }
        receive(chunk, false);
    }

    private void receive(Message.BundleChunk chunk, boolean upload) {
        String hash = chunk.bundle();
        if (has(hash)) {
            return;
        }
        try {
            CodeBundle bundle = incoming.computeIfAbsent(hash, BundleAssembly::new).add(chunk);
            if (bundle != null) {
                bundle.signer(trust); // a server relays only code a user of the network signed
                incoming.remove(hash);
                fetchDone(hash);
                arrived(bundle, upload);
            }
        } catch (CodeBundle.InvalidBundleException e) {
            incoming.remove(hash);
            uploader.remove(hash);
            pushing.remove(hash);
            fetchDone(hash);
            LOG.warn("server {}: {}", name, e.getMessage());
            if (upload) {
                rejected.put(hash, e.getMessage());
            } else {
                unavailable(hash, e.getMessage());
            }
        }
    }

    /**
     * A bundle is complete here: bind the computations waiting for it, serve the connections waiting for it, run
     * what waited for it. A fetched bundle that no computation here runs from (every one that wanted it ended while
     * it travelled, or it was only passed on downstream) is not kept; an upload is, for the submission that follows.
     */
    private void arrived(CodeBundle bundle, boolean upload) {
        codecs.add(bundle);
        LOG.debug("server {} has {}", name, bundle);
        for (long computation : take(unbound, bundle.hash())) {
            codecs.bind(computation, bundle.hash());
        }
        for (long computation : take(unboundData, bundle.hash())) {
            codecs.bindData(computation, bundle.hash());
        }
        for (PeerConnection ch : take(waiting, bundle.hash())) {
            serve(bundle, ch);
        }
        take(arrivals, bundle.hash()).forEach(Runnable::run);
        awaitingPush.remove(bundle.hash());
        if (pushing.remove(bundle.hash())) {
            pushUp(bundle.hash());
        }
        if (!upload) {
            codecs.unloadIfUnused(bundle.hash()); // kept among the unused ones, for those that ask next
        } else {
            uploadedUnused.put(bundle.hash(), clock.getAsLong());
        }
    }

    /** Upstream could not provide {@code hash}: tell everyone waiting for it. */
    void unavailable(String hash, String reason) {
        take(unbound, hash);
        take(unboundData, hash);
        for (PeerConnection ch : take(waiting, hash)) {
            ch.send(new Message.NoBundle(hash, reason));
        }
        take(arrivals, hash).forEach(Runnable::run);
    }

    private static <T> List<T> take(Map<String, List<T>> map, String hash) {
        List<T> list = map.remove(hash);
        return list == null ? List.of() : list;
    }

    /** A producer or a server downstream asks for {@code hash} on {@code from}. */
    void fetch(String hash, PeerConnection from) {
        CodeBundle bundle = codecs.bundle(hash);
        if (bundle != null) {
            serve(bundle, from);
            return;
        }
        waiting.computeIfAbsent(hash, h -> new ArrayList<>()).add(from);
        requestFromUpstream(hash);
    }

    /**
     * Computation {@code computation}, new here, runs from {@code sources} (its code bundle, and shared data if any):
     * bind it to them, fetching those not here first.
     */
    void need(long computation, String sources) {
        String code = Sources.code(sources);
        if (!codecs.bind(computation, code)) {
            unbound.computeIfAbsent(code, h -> new ArrayList<>()).add(computation);
            requestFromUpstream(code);
        }
        String data = Sources.data(sources);
        if (!codecs.bindData(computation, data)) {
            unboundData.computeIfAbsent(data, h -> new ArrayList<>()).add(computation);
            requestFromUpstream(data);
        }
    }

    private void requestFromUpstream(String hash) {
        if (incoming.containsKey(hash)) {
            return; // on its way already
        }
        int from = upstream.upstream();
        if (from < 0) {
            awaitingPush.putIfAbsent(hash, clock.getAsLong()); // a server below may be pushing it up
            return;
        }
        fetchesSent++;
        incoming.put(hash, new BundleAssembly(hash));
        fetching.put(hash, from);
        upstream.send(from, new Message.FetchBundle(hash));
    }

    /** The answer from upstream for {@code hash} is complete, or there will be none. */
    private void fetchDone(String hash) {
        fetching.remove(hash);
    }

    /** After a repair: fetches from a server that is no longer upstream start again from the new one. */
    void upstreamChanged() {
        int now = upstream.upstream();
        for (Map.Entry<String, Integer> f : new ArrayList<>(fetching.entrySet())) {
            if (f.getValue() != now) {
                incoming.remove(f.getKey());
                fetching.remove(f.getKey());
                requestFromUpstream(f.getKey());
            }
        }
    }

    /** Upstream answered a fetch with NoBundle. */
    void refused(Message.NoBundle no) {
        incoming.remove(no.bundle());
        fetchDone(no.bundle());
        unavailable(no.bundle(), no.reason());
    }

    /**
     * Sends {@code bundle} on {@code to} one chunk at a time, the next when the last has been written, so that a
     * large bundle to many producers neither piles up in memory nor holds up other messages (heartbeats).
     */
    private void serve(CodeBundle bundle, PeerConnection to) {
        bundlesServed++;
        sendChunk(BundleAssembly.chunks(bundle), 0, to);
    }

    private void sendChunk(Message.BundleChunk[] chunks, int i, PeerConnection to) {
        if (i == chunks.length || !to.isOpen()) {
            return;
        }
        to.send(chunks[i], () -> sendChunk(chunks, i + 1, to));
    }

    /**
     * Runs {@code action} when {@code hash} arrives, or when it is known that it will not.
     *
     * @return false if nothing is under way that would ever run it (the caller should go ahead now)
     */
    boolean afterArrival(String hash, Runnable action) {
        if (!incoming.containsKey(hash)) {
            return false;
        }
        arrivals.computeIfAbsent(hash, h -> new ArrayList<>()).add(action);
        return true;
    }

    /** A computation is over here: its bundle goes when no other computation uses it. */
    void ended(long computation) {
        codecs.remove(computation);
        for (Map<String, List<Long>> waiting : List.of(unbound, unboundData)) {
            for (List<Long> computations : waiting.values()) {
                computations.remove(Long.valueOf(computation)); // still on its way: do not bind it when it comes
            }
        }
    }
}
