package org.cx.sim;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The simulated world: one virtual clock, one queue of events run in time order (ties in the order they were
 * added), one source of randomness, and the network between the nodes. Nothing in it reads the wall clock or
 * another thread, so a seed decides every step.
 *
 * <p>Messages on a connection arrive in order after a random delay (mostly tens of microseconds to a couple of
 * milliseconds, now and then far longer). Two nodes may be cut apart for a while: what one sends the other then
 * arrives when the cut heals, as TCP would retransmit it, and a new connection between them times out.
 */
final class World {
    /** How long a connection attempt to an unreachable address waits before it fails, as a connect timeout. */
    static final long CONNECT_TIMEOUT_NANOS = 1_000_000_000L;

    final SplittableRandom random;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long added;
    private long ran;
    /** Servers listening, by address. */
    private final Map<String, SimServer> listening = new LinkedHashMap<>();
    /** Pairs of nodes cut apart, and when each cut heals. */
    private final Map<Set<Node>, Long> cuts = new LinkedHashMap<>();
    private final Trace trace;
    private final long slowMessageChance;
    /** Values encoded larger than this travel by reference, in chunks of {@link #VALUE_CHUNK_BYTES}; 0: none does. */
    private final long valueInlineBytes;
    /** Small chunks, so that a value takes several, and a connection may break between them. */
    static final int VALUE_CHUNK_BYTES = 64;

    private record Event(long time, long order, Node node, Runnable work) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int byTime = Long.compare(time, o.time);
            return byTime != 0 ? byTime : Long.compare(order, o.order);
        }
    }

    /**
     * @param slowPerMillion   how many messages in a million are held up to 50 ms
     * @param valueInlineBytes values encoded larger than this travel by reference ({@code cx.valueInlineBytes} for
     *                         the simulation's small values); 0: every value inline
     */
    World(long seed, long slowPerMillion, long valueInlineBytes, Trace trace) {
        this.random = new SplittableRandom(seed);
        this.slowMessageChance = slowPerMillion;
        this.valueInlineBytes = valueInlineBytes;
        this.trace = trace;
    }

    /** A node's store of values that travel by reference, on the world's clock and randomness; null if none do. */
    org.cx.wire.ValueStore newValueStore() {
        return valueInlineBytes == 0 ? null : org.cx.wire.ValueStore.inMemory(valueInlineBytes, VALUE_CHUNK_BYTES,
                new SplittableRandom(random.nextLong()), () -> now / 1_000_000);
    }

    long now() {
        return now;
    }

    long traceHash() {
        return trace.hash();
    }

    /** Events run so far. */
    long eventsRun() {
        return ran;
    }

    void trace(String line) {
        trace.line(now, line);
    }

    /** Told of every burst a process sends, as it leaves (a scripted fault may strike then). */
    private java.util.function.BiConsumer<Node, java.util.List<org.cx.wire.Message>> sent = (node, burst) -> { };

    void onSent(java.util.function.BiConsumer<Node, java.util.List<org.cx.wire.Message>> watcher) {
        this.sent = watcher;
    }

    void sent(Node node, java.util.List<org.cx.wire.Message> burst) {
        sent.accept(node, burst);
    }

    /** Folds a delivered message into the trace's hash. */
    void foldMessage(org.cx.wire.Message m) {
        trace.fold(now, m.getClass().getSimpleName().hashCode());
    }

    /** Runs {@code work} at {@code time} as {@code node} (null: as the world itself, e.g. a fault). */
    void at(long time, Node node, Runnable work) {
        events.add(new Event(Math.max(time, now), added++, node, work));
    }

    void after(long delayNanos, Node node, Runnable work) {
        at(now + delayNanos, node, work);
    }

    /** Runs events until {@code done} holds or the clock passes {@code limitNanos}; whether {@code done} held. */
    boolean runUntil(java.util.function.BooleanSupplier done, long limitNanos) {
        while (!done.getAsBoolean()) {
            Event e = events.poll();
            if (e == null || e.time > limitNanos) {
                if (e != null) {
                    events.add(e);
                }
                now = Math.max(now, limitNanos);
                return done.getAsBoolean();
            }
            now = e.time;
            ran++;
            if (e.node == null) {
                e.work.run();
            } else {
                e.node.run(e.work);
            }
        }
        return true;
    }

    /** A one-way delay for the next message: mostly short, now and then long. */
    long delay() {
        if (random.nextLong(1_000_000) < slowMessageChance) {
            return random.nextLong(1_000_000, 50_000_000);
        }
        return random.nextLong(20_000, 2_000_000);
    }

    void listen(String address, SimServer server) {
        listening.put(address, server);
    }

    void stopListening(String address) {
        listening.remove(address);
    }

    /** Cuts {@code a} and {@code b} apart until {@code healAt}. */
    void cut(Node a, Node b, long healAt) {
        cuts.put(Set.of(a, b), healAt);
        trace("cut " + a + " from " + b + " until " + healAt / 1_000_000 + " ms");
    }

    /** When the cut between {@code a} and {@code b} heals, or 0 if they are not cut apart now. */
    long cutUntil(Node a, Node b) {
        if (a == b || cuts.isEmpty()) {
            return 0;
        }
        Long heal = cuts.get(Set.of(a, b));
        return heal == null || heal <= now ? 0 : heal;
    }

    /**
     * Connects {@code from} to the server at {@code address}: {@code connected} gets the client's end, or null
     * (after a reset for an address nobody listens on, or a timeout for one cut off).
     */
    void connect(Node from, String address, Consumer<Pipe.End> connected, Pipe.Receiver client) {
        after(delay(), from, () -> {
            SimServer server = listening.get(address);
            if (server == null || server.crashed()) {
                after(delay(), from, () -> connected.accept(null));
                return;
            }
            long cut = cutUntil(from, server);
            if (cut != 0) {
                after(CONNECT_TIMEOUT_NANOS, from, () -> connected.accept(null));
                return;
            }
            Pipe pipe = new Pipe(this, from, server);
            pipe.server.receiver = server.accept(pipe.server);
            pipe.client.receiver = client;
            connected.accept(pipe.client);
        });
    }

    /** The nodes cut apart now, for the trace and the checks. */
    Set<Node> cutNodes() {
        Set<Node> nodes = new HashSet<>();
        cuts.forEach((pair, heal) -> {
            if (heal > now) {
                nodes.addAll(pair);
            }
        });
        return nodes;
    }
}
