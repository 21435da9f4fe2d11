package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.cx.api.TaskId;
import org.cx.wire.Message;
import org.cx.wire.MessageEncoder;
import org.cx.wire.Role;
import org.cx.wire.RoutedPayload;
import org.cx.wire.WireConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task server's part in the production network (paper §4.2): membership and the fat tree, failure detection and
 * repair, and the links to other servers, with its parts {@link Mirroring} (output commit, both ways),
 * {@link Routing} (exactly-once messages between servers) and {@link DiffusionDriver}. Everything runs on the
 * server's event loop, beside the {@link Scheduler}; docs/architecture.md gives the protocols as steps.
 *
 * <p>The decisions are made elsewhere, by classes without I/O: {@link MirrorCommit}, {@link MirrorCopies},
 * {@link ExactlyOnceChannels}, {@link Liveness}, {@link RootTakeover}, {@link HeirChoice}, {@link FatTree} and
 * {@link Diffusion}. This class is where membership meets the scheduler and the links, and its size (about 980
 * lines) is that of the membership protocols' effects in order: applying a topology, for one, touches membership,
 * the mirror group, the copies held, the channels, the neighbours and the links in one step, and splitting that step
 * would spread its order over several classes.
 */
final class ServerNetwork {
    private static final Logger LOG = LoggerFactory.getLogger(ServerNetwork.class);
    /** Unacknowledged messages between servers are sent again this often (and after every repair). */
    private static final long RESEND_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A joiner not in the network after this long asks again (or says why it waits). */
    private static final long JOIN_RETRY_NANOS = TimeUnit.SECONDS.toNanos(3);
    /**
     * A message carrying more application data than this has its changes mirrored in a batch of their own, and a
     * batch is cut once it holds this much: no batch outgrows the message limit.
     */
    static final long LARGE_FOR_A_BATCH = org.cx.wire.WireConfig.maxMessageBytes() / 4;

    /** What the network needs from the server it runs in. */
    interface Host {
        /** Tell producers and consumers where to go if this server fails. */
        void mirrorsChanged(String[] addresses);

        /** This server was declared failed: stop serving. */
        void evicted(String reason);

        /** Computation {@code id} ended at its origin: tell this server's producers. */
        void computationEnded(long id);

        /** A bundle message from another server: FetchBundle (asked on {@code from}), BundleChunk or NoBundle. */
        void bundleMessage(Message message, PeerConnection from);

        /**
         * A server this one mirrors runs computation {@code computation} from {@code bundle}: hold the bundle too,
         * for a take-over, until that computation ends.
         */
        void mirroredBundle(long computation, String bundle);

        /** Whether this server keeps an audit trail (then {@link #trail} is called). */
        default boolean trails() {
            return false;
        }

        /** Audit trails: task {@code id} is sent or received ({@code event}) in a transfer. */
        default void trail(TaskId id, String event) {
        }

        /**
         * For the timeline: the tasks of {@code transfer} left the scheduler for server {@code to}
         * ({@code transmitted} false), or went on the wire once the mirror group had recorded that (true).
         */
        default void transferred(RoutedPayload.Transfer transfer, int to, boolean transmitted) {
        }

        /** This server took over the tasks of failed server {@code failed}. */
        default void adopted(int failed) {
        }

        /**
         * Large values this server routed to another one, which has acknowledged them: this server's copies, and
         * those of its producers, may go once that is recorded (not the other servers': the receiver reads them).
         */
        default void handedOn(List<org.cx.wire.ValueRef> values) {
        }
    }

    private final NetworkConfig config;
    private final String address;
    private final String name;
    private final String jmx;
    /** JMX service URLs of the members, for {@code cx status}; empty when a member has none. */
    private final Map<Integer, String> jmxUrls = new HashMap<>();
    /** Opens the links to other servers; the network's own timers and commands go through {@link #cycle}. */
    private final PeerLink.Opener linkOpener;
    private final DutyCycle cycle;
    private final Scheduler scheduler;
    private final Host host;

    // ---- membership, as of the latest topology
    private int self;
    private long epoch;
    private FatTree tree;
    private final Map<Integer, String> addresses = new HashMap<>();
    private final Map<Integer, String> names = new HashMap<>();
    /** Membership changes this server decided or made, for the dashboard. */
    private final RecentEvents events = new RecentEvents(20);
    /** A failed server → the server that took over its tasks. */
    private final Map<Integer, Integer> forwards = new HashMap<>();
    /** Failed servers whose take-over this server has already handled. */
    private final Set<Integer> settled = new HashSet<>();

    // ---- mirroring, both ways, and exactly-once messages between servers
    private final Mirroring mirroring;
    private final MirrorCopies<PeerConnection> copies;
    private final Routing routing;

    // ---- diffusion
    private final DiffusionDriver diffusion;

    // ---- links to other servers (this server's outbound connections)
    private final Map<Integer, PeerLink> links = new HashMap<>();

    // ---- failure detection
    private Liveness liveness;
    /** Root: each member's last heartbeat (its load and the copies it holds), for heir choice and tolerance. */
    private final Map<Integer, Message.Heartbeat> lastBeat = new HashMap<>();
    private boolean evicted;
    /** The latest topology whose changes here (a take-over, a new mirror group) are all on this server's mirrors. */
    private long committedEpoch;
    /** Root: each member's committed epoch, from its heartbeats (kept when it fails, unlike {@link #lastBeat}). */
    private final Map<Integer, Long> committedEpochs = new HashMap<>();
    /** Root: for each failed server, the epoch that named its heir. */
    private final Map<Integer, Long> heirSince = new HashMap<>();
    /** Join requests sent so far: only the latest one's timer asks again (a redirect starts a new one). */
    private int joinAttempts;
    /** The secondary root's vote on whether the primary is gone. */
    private final RootTakeover takeover = new RootTakeover();
    /** Why the secondary root last suspected the primary. */
    private String lastSuspicion = "";
    /** The whole network is closing (see {@link #shutDown}): nobody is judged failed any more. */
    private boolean shuttingDown;

    ServerNetwork(ServerConfig server, String address, PeerLink.Opener linkOpener, DutyCycle cycle, Scheduler scheduler,
                  Host host) {
        this.config = server.network();
        this.address = address;
        this.name = server.name();
        this.jmx = server.jmx();
        this.linkOpener = linkOpener;
        this.cycle = cycle;
        this.scheduler = scheduler;
        this.host = host;
        this.mirroring = new Mirroring(this, scheduler, host, cycle, config.heartbeat().toNanos());
        this.copies = mirroring.copies();
        this.routing = new Routing(this, mirroring, scheduler, host, cycle);
        this.diffusion = new DiffusionDriver(scheduler, cycle, new DiffusionDriver.Network() {
            @Override
            public int self() {
                return self;
            }

            @Override
            public boolean hasNeighbours() {
                return joined() && tree.size() >= 2;
            }

            @Override
            public boolean evicted() {
                return evicted;
            }

            @Override
            public boolean isMember(int id) {
                return tree.contains(id);
            }

            @Override
            public void send(int id, Message message) {
                ServerNetwork.this.send(id, message);
            }

            @Override
            public void route(int to, RoutedPayload payload) {
                ServerNetwork.this.route(to, payload);
            }
        });
    }

    /** Starts as the founder of a new network, or asks {@code config.join()} to let it in. Event loop. */
    void start() {
        liveness = new Liveness(config.failTimeout().toNanos(), cycle.now());
        if (config.join() == null) {
            self = 1;
            epoch = 1;
            committedEpoch = 1;
            tree = new FatTree(config.branching());
            tree.join(self);
            addresses.put(self, address);
            names.put(self, name);
            jmxUrls.put(self, jmx);
            scheduler.attach(self, this::resolve, mirroring);
        } else {
            tree = new FatTree(config.branching());
            sendJoin(config.join());
        }
        cycle.every(config.heartbeat().toNanos(), this::beat);
        cycle.every(config.diffusion().toNanos(), diffusion::diffuse);
        cycle.every(RESEND_PERIOD_NANOS, routing::resendUnacknowledged);
    }

    // ---------------------------------------------------------------- views

    int self() {
        return self;
    }

    long epoch() {
        return epoch;
    }

    boolean joined() {
        return self != 0;
    }

    int size() {
        return tree.size();
    }

    int position() {
        return tree.contains(self) ? tree.position(self) : -1;
    }

    boolean isRoot() {
        return position() == 0;
    }

    /** Where the primary root is, as far as this server knows: while it is still joining, the member it asked. */
    private String rootAddress() {
        return tree.size() > 0 ? addresses.get(tree.idAt(0)) : config.join();
    }

    List<Integer> mirrorGroup() {
        return tree.contains(self) ? tree.mirrorGroup(self) : List.of();
    }

    List<Integer> neighbours() {
        return diffusion.neighbours();
    }

    /** The server this one fetches code bundles from: its parent; the primary root for the secondary; -1. */
    int upstream() {
        if (!tree.contains(self)) {
            return -1;
        }
        int position = tree.position(self);
        return position == 0 ? -1 : tree.idAt(position == 1 ? 0 : tree.parent(position));
    }

    /** Sends {@code message} to server {@code id} now. */
    void sendNow(int id, Message message) {
        send(id, message);
        PeerLink link = links.get(id);
        if (link != null) {
            link.flush();
        }
    }

    /** Server {@code id}'s name, or its id if this server never learnt it. */
    private String nameOf(int id) {
        return names.getOrDefault(id, "#" + id);
    }

    /** The membership changes this server decided or made, oldest first. */
    List<RecentEvents.Event> recentEvents() {
        return events.list();
    }

    /** Addresses of this server's mirror group, for clients to fail over to. */
    String[] mirrorAddresses() {
        return mirrorGroup().stream().map(addresses::get).toArray(String[]::new);
    }

    /** Whether a mirror held here has computation {@code id}. */
    boolean mirrors(long id) {
        return copies.mirrors(id);
    }

    Set<Integer> replicasHeld() {
        return copies.held();
    }

    /** Where server {@code id}'s tasks live now: follows the chain of take-overs. */
    int resolve(int id) {
        int at = id;
        for (Integer next; (next = forwards.get(at)) != null; ) {
            at = next;
        }
        return at;
    }

    // ---------------------------------------------------------------- mirroring and routing

    /**
     * Runs {@code output} once every change made so far is on every mirror: at once when nobody mirrors this server
     * or nothing is unacknowledged.
     */
    void afterCommit(Runnable output) {
        mirroring.afterCommit(output);
    }

    /** Sends the changes of this burst to the mirrors as one batch, and flushes every link (after each burst). */
    void flush() {
        mirroring.flush();
        for (PeerLink link : links.values()) {
            link.flush();
        }
    }

    /** Acknowledges the batches of mirrored servers that nobody waited on (periodically). */
    void sendDeferredAcks() {
        mirroring.sendDeferredAcks();
    }

    /** Sends {@code payload} to server {@code to}, exactly once: recorded, mirrored, then transmitted. */
    void route(int to, RoutedPayload payload) {
        routing.route(to, payload);
    }

    Routing routing() {
        return routing;
    }

    // ---------------------------------------------------------------- membership

    /** Asks {@code target} to let this server in, and checks {@link #JOIN_RETRY_NANOS} later that it did. */
    private void sendJoin(String target) {
        PeerLink link = openLink(-1, target);
        link.send(new Message.Join(name, address, jmx));
        link.flush();
        int attempt = ++joinAttempts;
        cycle.after(JOIN_RETRY_NANOS, () -> checkJoined(link, target, attempt));
    }

    /**
     * Not in the network yet: if the target could not be reached or refused, says why and asks again (servers may
     * start in any order); if the request went through, says so and keeps waiting, since asking again could make
     * the root place this server twice. A redirect or a newer request ends this attempt's checks.
     */
    private void checkJoined(PeerLink link, String target, int attempt) {
        if (joined() || evicted || shuttingDown || attempt != joinAttempts) {
            return;
        }
        if (link.failure() != null || link.isClosed()) {
            String next = nextJoinTarget(target);
            LOG.warn("server {} is not in the network yet: {} did not let it in ({}); {}", name, target,
                    link.failure() != null ? link.failure() : "the connection closed",
                    next.equals(target) ? "asking again" : "asking " + next + ", registered at the lookup service");
            link.close();
            sendJoin(next);
        } else {
            LOG.warn("server {} is not in the network yet: {} has not answered its request", name, target);
            cycle.after(JOIN_RETRY_NANOS, () -> checkJoined(link, target, attempt));
        }
    }

    /**
     * Whom to ask after {@code failed} did not answer: the next of the other members registered at the lookup service
     * ({@link NetworkConfig#elsewhere}), in turn, or {@code failed} again when there are none.
     */
    private String nextJoinTarget(String failed) {
        List<String> others = config.elsewhere().get().stream()
                .filter(a -> !a.equals(failed) && !a.equals(address)).toList();
        return others.isEmpty() ? failed : others.get(joinAttempts % others.size());
    }

    private void onJoin(Message.Join join, PeerConnection from) {
        if (!isRoot()) {
            from.send(new Message.Redirect(rootAddress()));
            return;
        }
        int id = nextId();
        tree.join(id);
        addresses.put(id, join.address());
        names.put(id, join.name());
        jmxUrls.put(id, join.jmx());
        liveness.heard(id, cycle.now());
        LOG.info("server {} ({}) joined at position {}", id, join.name(), tree.position(id));
        events.record(cycle.now(), "server " + join.name() + " (" + join.address() + ") joined at position "
                + tree.position(id));
        publishTopology();
    }


    private int nextId() {
        int max = 0;
        for (int id : tree.ids()) {
            max = Math.max(max, id);
        }
        for (Map.Entry<Integer, Integer> f : forwards.entrySet()) {
            max = Math.max(max, Math.max(f.getKey(), f.getValue()));
        }
        return max + 1;
    }

    /** Root: a new epoch of the topology goes to every member, this one included. */
    private void publishTopology() {
        long next = epoch + 1;
        for (int id : tree.ids()) {
            if (id != self) {
                send(id, topologyFor(id, next));
            }
        }
        applyTopology(topologyFor(self, next));
    }

    /** Takes a newer topology: positions, mirror groups, take-overs; then re-mirrors and repairs what it must. */
    private void applyTopology(Message.Topology t) {
        if (t.epoch() <= epoch && joined()) {
            return;
        }
        boolean first = !joined();
        epoch = t.epoch();
        self = t.yourId();
        tree = new FatTree(t.branching());
        for (Message.Member m : t.members()) {
            tree.join(m.id());
            addresses.put(m.id(), m.address());
            names.put(m.id(), m.name());
            jmxUrls.put(m.id(), m.jmx());
        }
        for (int i = 0; i < t.forwardFrom().length; i++) {
            forwards.put(t.forwardFrom()[i], t.forwardTo()[i]);
        }
        if (first) {
            scheduler.attach(self, this::resolve, mirroring);
            LOG.info("server {} joined the network at position {}", self, tree.position(self));
        }
        long now = cycle.now();
        liveness.rootAnswered(now);
        takeover.settle();
        // Take over every newly failed server whose tasks now live here, from this server's copy of them.
        boolean adopted = false;
        for (int failed : forwards.keySet()) {
            if (!settled.add(failed) || first) {
                continue;
            }
            Replica copy = copies.remove(failed);
            if (resolve(failed) != self) {
                continue;
            }
            if (copy != null && copy.complete()) {
                adopt(failed, copy);
                adopted = true;
            } else {
                stateLost(failed);
            }
        }
        // Mirror group: new members get a snapshot; old ones keep getting changes until the new ones have it.
        mirroring.regroup(mirrorGroup(), adopted, tree::contains);
        if (isRoot()) {
            liveness.watch(tree.ids(), now);
        }
        diffusion.neighboursChanged(tree.contains(self) ? tree.neighbours(self) : List.of(),
                tree.contains(self) ? tree.seedTargets(self) : List.of());
        links.keySet().removeIf(id -> {
            if (!tree.contains(id)) {
                links.get(id).close();
                return true;
            }
            return false;
        });
        host.mirrorsChanged(mirrorAddresses());
        if (!isRoot()) {
            send(tree.idAt(0), heartbeat()); // the root, perhaps a new one, hears from every member at once
        }
        mirroring.releaseCommitted();
        routing.resendUnacknowledged();
        long applied = epoch;
        afterCommit(() -> {
            committedEpoch = Math.max(committedEpoch, applied);
            if (!isRoot() && tree.size() > 1) {
                send(tree.idAt(0), heartbeat()); // the root learns at once that this change is safe
            }
        });
    }

    /**
     * This server was named heir of {@code failed} but holds no complete copy of it, so nobody alive does: the
     * failed server's mirror group failed with it. Every computation may have had tasks there; they all fail, with
     * a reason, rather than wait forever.
     */
    private void stateLost(int failed) {
        String reason = "task server " + names.getOrDefault(failed, String.valueOf(failed)) + " failed together "
                + "with every copy of its tasks (its whole mirror group failed before the network re-mirrored it); "
                + "submit the computation again";
        LOG.error("server {}: {}", self, reason);
        for (int id : tree.ids()) {
            send(id, new Message.StateLost(failed, reason));
        }
        scheduler.failAllRunning(reason);
    }

    private void adopt(int failed, Replica copy) {
        LOG.info("server {} takes over the {} tasks of failed server {}", self, copy.taskCount(), failed);
        scheduler.replication().adopt(copy);
        routing.adopt(copy);
        host.adopted(failed);
    }

    /** Root only: {@code id} failed, alone. */
    private void declareFailed(int id, String why) {
        declareFailed(id, why, Set.of());
    }

    /**
     * Root only: {@code id} failed, one of {@code failing} declared together. Picks who takes over its tasks (never
     * another of {@code failing}; this server when nobody live is known to hold a copy, so that a live server says
     * the state is lost), moves the last leaf into the hole, publishes.
     */
    private void declareFailed(int id, String why, Set<Integer> failing) {
        if (!tree.contains(id) || id == self) {
            return;
        }
        int heir = HeirChoice.heir(tree, id, this::copySeq, failing);
        FatTree.Repair repair = tree.remove(id);
        if (heir < 0) {
            copies.remove(id); // what this server holds of it lacks what it committed since (HeirChoice)
            heir = repair.heir();
        }
        if (heir < 0 || failing.contains(heir)) {
            heir = self;
        }
        LOG.warn("server {} failed ({}); server {} takes over its tasks; moves {}", id, why, heir,
                repair.moves().stream().map(m -> m[0] + ":" + m[1] + "->" + m[2]).toList());
        events.record(cycle.now(), "server " + nameOf(id) + " failed (" + why + "); " + nameOf(heir)
                + " takes over its tasks" + (repair.moves().isEmpty() ? "" : "; the last leaf moves into its place"));
        // Servers whose tasks this one was to take over, though its take-over never reached its mirrors: it
        // failed before, so those tasks are nowhere (everyone else dropped its copy when the heir was named).
        long committed = committedEpochs.getOrDefault(id, 0L);
        List<Integer> lostWithIt = forwards.entrySet().stream()
                .filter(f -> f.getValue() == id && heirSince.getOrDefault(f.getKey(), 0L) > committed)
                .map(Map.Entry::getKey).toList();
        if (heir >= 0) {
            forwards.put(id, heir);
        }
        liveness.forget(id);
        lastBeat.remove(id);
        PeerLink link = links.remove(id);
        if (link != null) {
            link.close();
        }
        publishTopology();
        heirSince.put(id, epoch);
        lostWithIt.forEach(this::stateLost);
    }

    /** The last batch of {@code failed} applied to {@code holder}'s complete copy of it, or -1 if it has none. */
    private long copySeq(int holder, int failed) {
        if (holder == self) {
            return copies.completeSeq(failed);
        }
        Message.Heartbeat hb = lastBeat.get(holder);
        if (hb == null) {
            return -1;
        }
        for (int i = 0; i < hb.replicas().length; i++) {
            if (hb.replicas()[i] == failed) {
                return hb.replicaSeqs()[i];
            }
        }
        return -1;
    }

    private static boolean contains(int[] ids, int id) {
        for (int i : ids) {
            if (i == id) {
                return true;
            }
        }
        return false;
    }

    /** Every heartbeat period: members tell the root they live; the root and the secondary root check on others. */
    private void beat() {
        if (!joined() || evicted || shuttingDown) {
            return;
        }
        long now = cycle.now();
        // If this process was not running (stopped, or starved), every clock restarts: nobody is judged this round.
        liveness.check(now);
        int position = position();
        if (position != 0 && tree.size() > 1) {
            send(tree.idAt(0), heartbeat());
        } else if (position == 0 && tree.size() > 1) {
            send(tree.idAt(1), heartbeat()); // so that a root that was frozen learns it was replaced
        }
        if (position == 0 && !liveness.hearsMost(self, tree.size(), now)) {
            // Cut off from most of the network, which replaces this root: declaring them failed would make two.
            if (liveness.rootCutOff(now)) {
                evict("this primary root has not heard from most of the network for "
                        + config.failTimeout().toMillis() * 3 / 2 + " ms (one and a half failure timeouts): it is "
                        + "cut off, and the others take its place");
            }
        } else if (position == 0) {
            List<Liveness.Silent> silentMembers = liveness.silentMembers(self, now);
            Set<Integer> failing = new HashSet<>();
            for (Liveness.Silent silent : silentMembers) {
                failing.add(silent.id()); // none of them may be named heir of another: its copies are as far away
            }
            for (Liveness.Silent silent : silentMembers) {
                declareFailed(silent.id(), "silent for " + silent.forNanos() / 1_000_000 + " ms", failing);
            }
        } else if (liveness.cutOff(now)) {
            // The root declared this server failed long ago and its heir runs its tasks: everything it hands out
            // now is wasted. Stop, so that its producers and consumers move to a server that can commit.
            evict("the primary root has not answered for " + Liveness.CUT_OFF_TIMEOUTS + " failure timeouts ("
                    + Liveness.CUT_OFF_TIMEOUTS * config.failTimeout().toMillis() + " ms): this server is cut off "
                    + "from it and was declared failed; its tasks live on in its heir");
        } else if (position == 1 && liveness.rootSilentNanos(now) > 0) {
            suspectRoot("silent for " + liveness.rootSilentNanos(now) / 1_000_000 + " ms");
        }
    }

    /**
     * The secondary root: the primary looks failed. Take its place if nobody else is there to ask; else ask the
     * other members whether they lost it too ({@link RootTakeover}).
     */
    private void suspectRoot(String why) {
        lastSuspicion = why;
        if (RootTakeover.alone(tree.size())) {
            if (liveness.rootCrashed(cycle.now())) {
                takeOverAsRoot(why + "; its connection broke a failure timeout ago, and nobody else is there to ask");
            }
            return;
        }
        takeover.suspect(self);
        int root = tree.idAt(0);
        for (int id : tree.ids()) {
            if (id != root && id != self) {
                send(id, new Message.RootQuery(self, epoch));
            }
        }
    }

    /** A member: the secondary root asks whether the primary is gone for this server too. */
    private void onRootQuery(Message.RootQuery q, PeerConnection from) {
        boolean silent = liveness.rootSilentFor(cycle.now(), config.failTimeout().toNanos() / 2);
        from.send(new Message.RootSeen(self, silent));
    }

    /** The secondary root: a member's answer. Most of the network lost the primary: take its place. */
    private void onRootSeen(Message.RootSeen seen) {
        if (position() == 1 && takeover.answered(seen.from(), seen.silent(), tree.size())) {
            takeOverAsRoot(lastSuspicion + ", and most of the network lost it too");
        }
    }

    /** The secondary root: the primary is gone; take its place and repair the tree from here. */
    private void takeOverAsRoot(String why) {
        int root = tree.idAt(0);
        LOG.warn("primary root {} failed ({}); server {} takes over as primary root", root, why, self);
        events.record(cycle.now(), "primary root " + nameOf(root) + " failed (" + why + "); " + name
                + " takes over as primary root");
        // Members still heartbeat the old root until the new topology reaches them: one timeout of grace.
        liveness.graceUntil(tree.ids(), cycle.now() + config.failTimeout().toNanos());
        int heir = copies.holdsComplete(root) ? self : -1;
        FatTree.Repair repair = tree.remove(root);
        forwards.put(root, heir >= 0 ? heir : repair.heir());
        PeerLink link = links.remove(root);
        if (link != null) {
            link.close();
        }
        publishTopology();
    }

    private Message.Heartbeat heartbeat() {
        Map<Integer, Long> complete = copies.complete();
        int[] held = complete.keySet().stream().mapToInt(Integer::intValue).toArray();
        long[] seqs = complete.values().stream().mapToLong(Long::longValue).toArray();
        return new Message.Heartbeat(self, epoch, held, seqs, scheduler.readyCount(), scheduler.freshCount(),
                scheduler.taskCount(), scheduler.producerCount(), scheduler.counters().tasksCompleted(),
                committedEpoch);
    }

    private void onHeartbeat(Message.Heartbeat hb, PeerConnection from) {
        if (forwards.containsKey(hb.from())) {
            from.send(new Message.Evicted("server " + hb.from() + " was declared failed; its tasks are on "
                    + "server " + resolve(hb.from())));
            return;
        }
        if (isRoot()) {
            liveness.heard(hb.from(), cycle.now());
            lastBeat.put(hb.from(), hb);
            committedEpochs.merge(hb.from(), hb.committedEpoch(), Math::max);
        }
        from.write(new Message.HeartbeatAck(epoch));
        if (hb.epoch() < epoch && isRoot() && tree.contains(hb.from())) {
            from.write(topologyFor(hb.from(), epoch));
        }
        from.flush();
    }

    private Message.Topology topologyFor(int id, long atEpoch) {
        Message.Member[] members = tree.ids().stream()
                .map(m -> new Message.Member(m, names.get(m), addresses.get(m), jmxUrls.getOrDefault(m, "")))
                .toArray(Message.Member[]::new);
        int[] from = forwards.keySet().stream().mapToInt(Integer::intValue).toArray();
        int[] to = new int[from.length];
        for (int i = 0; i < from.length; i++) {
            to[i] = forwards.get(from[i]);
        }
        return new Message.Topology(atEpoch, config.branching(), id, members, from, to);
    }

    private void evict(String reason) {
        if (evicted) {
            return;
        }
        evicted = true;
        LOG.error("server {} stops: {}", self, reason);
        host.evicted(reason);
    }

    /**
     * A link to another server closed: the root (or the secondary, for the root) treats that as a failure if the link
     * was {@code up}. One that never came up leaves the judging to silence: a connection attempt timed out by a cut
     * that has healed since would otherwise have the root declare a live server failed (and with it, perhaps, the
     * rest of its mirror group).
     */
    private void linkLost(int id, boolean up) {
        links.remove(id);
        mirroring.linkLost(id);
        if (evicted || shuttingDown || !tree.contains(id) || !up) {
            return;
        }
        if (isRoot()) {
            if (liveness.hearsMost(self, tree.size(), cycle.now())) {
                declareFailed(id, "connection lost");
            } // else this root is the one cut off: silence judges it on the next heartbeats

        } else if (position() == 1 && tree.idAt(0) == id) {
            liveness.rootLost(cycle.now());
            suspectRoot("connection lost");
        } else if (tree.idAt(0) == id) {
            liveness.rootLost(cycle.now()); // asked by the secondary root, this server says it lost the primary
        }
    }

    /** The answer to {@code cx network status} and the dashboard: the root's view; other servers point to the root. */
    Message networkStatus() {
        if (!isRoot()) {
            return new Message.Redirect(rootAddress());
        }
        List<Message.ServerStatus> rows = new ArrayList<>();
        for (int id : tree.ids()) {
            Message.Heartbeat hb = id == self ? heartbeat() : lastBeat.get(id);
            int[] group = tree.mirrorGroup(id).stream().mapToInt(Integer::intValue).toArray();
            rows.add(hb == null
                    ? new Message.ServerStatus(id, names.get(id), addresses.get(id), tree.position(id), group,
                            new int[0], -1, -1, -1, -1, -1, jmxUrls.getOrDefault(id, ""))
                    : new Message.ServerStatus(id, names.get(id), addresses.get(id), tree.position(id), group,
                            hb.replicas(), hb.ready(), hb.fresh(), hb.tasks(), hb.producers(), hb.completed(),
                            jmxUrls.getOrDefault(id, "")));
        }
        return new Message.NetworkStatus(epoch, config.branching(), tolerant(),
                rows.toArray(Message.ServerStatus[]::new));
    }

    /** Whether the network declared this server failed. */
    boolean evictedHere() {
        return evicted;
    }

    /**
     * Root: whether every member's mirror group holds a complete copy of it (from the members' last heartbeats),
     * no member is still handing over to a new group, and every member's changes from the latest topology (a
     * take-over) are on its mirrors. Then the network survives one more failure.
     */
    boolean tolerant() {
        if (committedEpoch < epoch) {
            return false;
        }
        for (int id : tree.ids()) {
            Message.Heartbeat beat = lastBeat.get(id);
            if (id != self && (beat == null || beat.committedEpoch() < epoch)) {
                return false; // its take-over or its new mirror group may not be on its mirrors yet
            }
            for (int member : tree.mirrorGroup(id)) {
                boolean holds = member == self
                        ? copies.holdsComplete(id)
                        : lastBeat.containsKey(member) && contains(lastBeat.get(member).replicas(), id);
                if (!holds) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- messages

    /**
     * Called after each burst of messages: a changed need is told to the neighbours, and spare fresh tasks go to
     * those that asked ({@link DiffusionDriver#afterBurst}).
     */
    void afterBurst() {
        diffusion.afterBurst();
    }

    /** Whether {@code msg} carries enough application data to have its changes mirrored in a batch of their own. */
    boolean largeForABatch(Message msg) {
        return MessageEncoder.sizeHint(msg) > LARGE_FOR_A_BATCH;
    }

    /** Whether the changes recorded since the last batch are enough for a batch. */
    boolean batchFull() {
        return mirroring.commit().pendingBytes() > LARGE_FOR_A_BATCH;
    }

    /** A message from another server or an observer, on either kind of connection. Event loop. */
    void onMessage(Message msg, PeerConnection from) {
        if (evicted) {
            return;
        }
        Integer sender = from.serverId();
        if (sender != null && forwards.containsKey(sender)) {
            // A server declared failed runs again (it was frozen, or starved): its state lives on in its heir, and
            // nothing it says may change anything here; a transfer from it would put a task on two servers.
            from.send(new Message.Evicted("server " + sender + " was declared failed and its tasks were "
                    + "taken over by server " + resolve(sender)));
            return;
        }
        switch (msg) {
            case Message.Mirror m -> {
                if (forwards.containsKey(m.from())) {
                    from.send(new Message.Evicted("server " + m.from() + " was declared failed and its tasks were "
                            + "taken over by server " + resolve(m.from())));
                } else {
                    mirroring.onMirror(m, from);
                }
            }
            case Message.MirrorAck a -> mirroring.onMirrorAck(a);
            case Message.MirrorRelease r -> {
                copies.remove(r.from()); // the copy is gone: it must not be acknowledged late
            }
            case Message.StateLost l -> scheduler.failAllRunning(l.reason());
            case Message.Routed r -> {
                boolean large = largeForABatch(r);
                if (large) {
                    cycle.endOfBurst(); // its changes go to the mirrors in a batch of their own
                }
                routing.onRouted(r);
                if (large || batchFull()) {
                    cycle.endOfBurst();
                }
            }
            case Message.RoutedAck a -> routing.onRoutedAck(a);
            case Message.Load l -> diffusion.onLoad(l);
            case Message.Heartbeat hb -> onHeartbeat(hb, from);
            case Message.HeartbeatAck a -> {
                liveness.rootAnswered(cycle.now());
                takeover.settle();
            }
            case Message.RootQuery q -> onRootQuery(q, from);
            case Message.RootSeen s -> onRootSeen(s);
            case Message.Topology t -> applyTopology(t);
            case Message.Join j -> onJoin(j, from);
            case Message.Redirect r -> sendJoin(r.address());
            case Message.Evicted e -> evict(e.reason());
            case Message.ComputationEnded e -> {
                scheduler.endedElsewhere(e.computation());
                host.computationEnded(e.computation());
                if (isRoot()) {
                    // Passed on by the root as well: a server cut off from the origin alone (not from the root, so
                    // not declared failed) would otherwise run the computation's tasks on until the cut heals.
                    tellServers(e);
                }
            }
            case Message.Prioritize p -> scheduler.prioritizedElsewhere(p.computation(), p.priority());
            case Message.NetworkQuery q -> from.send(networkStatus());
            case Message.FetchBundle f -> host.bundleMessage(f, from);
            case Message.BundleChunk c -> host.bundleMessage(c, from);
            case Message.NoBundle b -> host.bundleMessage(b, from);
            default -> LOG.warn("server {} ignores {} from another server", self, msg.getClass().getSimpleName());
        }
    }

    /** Computation {@code id} ended here, at its origin: every other server drops what is left of it. */
    void computationEnded(long id) {
        tellServers(new Message.ComputationEnded(id));
    }

    /** Sends {@code m} to every other server once this command's changes are committed (best effort). */
    void tellServers(Message m) {
        if (tree.size() < 2) {
            return;
        }
        afterCommit(() -> {
            for (int member : tree.ids()) {
                if (member != self) {
                    send(member, m);
                }
            }
        });
    }

    // ---------------------------------------------------------------- links

    /** Sends {@code m} on every link this server has open (they go at the next flush). */
    void tellLinks(Message m) {
        for (PeerLink link : links.values()) {
            link.send(m);
        }
    }

    void send(int id, Message m) {
        if (id == self || evicted) {
            return;
        }
        PeerLink link = links.get(id);
        if (link == null) {
            String to = addresses.get(id);
            if (to == null) {
                return;
            }
            link = openLink(id, to);
            links.put(id, link);
        }
        link.send(m);
    }

    /**
     * The whole network is being shut down (its servers share a process, as in {@code LocalCluster}): from now on
     * a lost link or a silent server is not a failure, so closing the servers one after another repairs nothing.
     */
    void shutDown() {
        shuttingDown = true;
    }

    void close() {
        for (PeerLink link : links.values()) {
            link.close();
        }
        links.clear();
    }

    /** Opens this server's link to server {@code id} (-1: a server not in the network yet, asked to let this one in). */
    private PeerLink openLink(int id, String target) {
        return linkOpener.open(id, target, new PeerLink.Owner() {
            @Override
            public Message.Hello hello() {
                return new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.SERVER, name, self);
            }

            @Override
            public void onMessage(Message message, PeerConnection from) {
                ServerNetwork.this.onMessage(message, from);
            }

            @Override
            public void endOfBurst() {
                cycle.endOfBurst();
            }

            @Override
            public void lost(PeerLink link) {
                if (links.get(link.id()) == link) {
                    linkLost(link.id(), link.wasUp());
                    cycle.endOfBurst(); // a repair may have followed
                }
            }
        });
    }
}
