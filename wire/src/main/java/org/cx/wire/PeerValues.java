package org.cx.wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One end of a connection's view of large values: which values the other end holds (it sent them, referred to them,
 * or was sent them here), and the values arriving from it. Whatever the transport, the rule is one: before a message
 * that refers to a value the other end may not hold, send that value's chunks. Used by one thread at a time.
 */
public final class PeerValues {
    private final ValueStore store;
    private final Set<ValueRef> peerHolds = new HashSet<>();
    private final Map<ValueRef, ValueStore.Arrival> arriving = new HashMap<>();
    private boolean takesReleases;

    /**
     * @param takesReleases whether the other end may say which values go ({@link Message.ValuesReleased}): a server
     *                      may, to its producers and to other servers, and a producer to its worker processes; a
     *                      producer, a consumer or task code may not make a server or a producer drop values
     */
    public PeerValues(ValueStore store, boolean takesReleases) {
        this.store = store;
        this.takesReleases = takesReleases;
    }

    /** The other end turned out to be one that may say which values go (a server, once its hello is read). */
    public void takeReleases() {
        takesReleases = true;
    }

    public ValueStore store() {
        return store;
    }

    /**
     * The values {@code message} refers to whose chunks must go before it, each counted as held by the other end from
     * now on (but those of a {@link Message.Routed}, which always go). Values this process does not hold (their
     * computation ended) are left out: the message goes as it is.
     */
    public List<ValueRef> toSendBefore(Message message) {
        if (message instanceof Message.ComputationEnded e) {
            peerHolds.removeIf(r -> r.computation() == e.computation());
            return List.of();
        }
        if (store.count() == 0) {
            return List.of();
        }
        if (message instanceof Message.Routed) {
            // The receiving server hands these values on and lets go of its copy once it has (see received), on its
            // own: what it held of them when an earlier message went may be gone, so a routed message always
            // carries its values (a copy still held there is kept and the new one goes).
            java.util.Set<ValueRef> all = new java.util.LinkedHashSet<>();
            ValueRef.forEachIn(message, ref -> {
                if (store.holds(ref)) {
                    all.add(ref);
                }
            });
            return List.copyOf(all);
        }
        List<ValueRef> missing = new ArrayList<>(0);
        ValueRef.forEachIn(message, ref -> {
            if (store.holds(ref) && peerHolds.add(ref)) {
                missing.add(ref);
            }
        });
        return missing;
    }

    /** Whether the other end holds {@code ref} (it sent it, referred to it, or was sent it here). */
    boolean peerHolds(ValueRef ref) {
        return peerHolds.contains(ref);
    }

    /** Whether {@code ref} is held here or arriving on this connection. */
    boolean heldOrArriving(ValueRef ref) {
        return store.holds(ref) || arriving.containsKey(ref);
    }

    /** {@code ref}'s chunks arriving here, null if none are. */
    ValueStore.Arrival arriving(ValueRef ref) {
        return arriving.get(ref);
    }

    /** Every chunk of {@code ref} was sent to the other end, not by {@link #toSendBefore}: it holds the value now. */
    void sentWhole(ValueRef ref) {
        peerHolds.add(ref);
    }

    /** Where a connection's messages go, in order; it takes a {@link Message.ValueChunk}'s reference with it. */
    public interface Sink {
        void write(Message message) throws IOException;
    }

    /**
     * Writes {@code message} to {@code out} after the chunks of the large values it refers to that the other end
     * lacks ({@link #toSendBefore}); a {@link Message.ValuesReleased} only as far as the other end holds its values
     * ({@link #passOn}).
     */
    public void write(Message message, Sink out) throws IOException {
        if (message instanceof Message.ValuesReleased released) {
            Message.ValuesReleased held = passOn(released);
            if (held != null) {
                out.write(held);
            }
            return;
        }
        for (ValueRef ref : toSendBefore(message)) {
            try (ValueStore.Chunks chunks = store.chunks(ref)) {
                while (!chunks.done()) {
                    out.write(chunks.next());
                }
            }
        }
        out.write(message);
    }

    /**
     * The part of {@code released} this connection passes on: the values the other end holds, counted as held no
     * longer; null if it holds none of them.
     */
    public Message.ValuesReleased passOn(Message.ValuesReleased released) {
        List<byte[]> held = new ArrayList<>(released.refs().length);
        for (byte[] bytes : released.refs()) {
            if (peerHolds.remove(ValueRef.of(bytes))) {
                held.add(bytes);
            }
        }
        if (held.isEmpty()) {
            return null;
        }
        return held.size() == released.refs().length ? released
                : new Message.ValuesReleased(held.toArray(byte[][]::new));
    }

    /**
     * Takes in a message from the other end. @return true if it was a value's chunk or a {@link
     * Message.ValuesReleased} (whose values go from the store), consumed here; otherwise the values it refers to
     * are counted as held by the other end, except those of a {@link Message.Routed}, which it hands on
     *
     * @throws MalformedMessageException for a chunk out of order or damaged
     */
    public boolean received(Message message) throws IOException {
        if (message instanceof Message.ValueChunk chunk) {
            ValueRef ref = ValueRef.of(chunk.ref());
            ValueStore.Arrival arrival = arriving.get(ref);
            if (arrival == null) {
                arrival = store.arrival(ref);
                arriving.put(ref, arrival);
            }
            boolean whole;
            try {
                whole = arrival.add(chunk);
            } catch (IOException | RuntimeException e) {
                arriving.remove(ref).close();
                throw e;
            }
            if (whole) {
                arriving.remove(ref);
                peerHolds.add(ref);
            }
            return true;
        }
        if (message instanceof Message.ValuesReleased released) {
            if (!takesReleases) {
                throw new MalformedMessageException("ValuesReleased from a peer that may not say which values go "
                        + "(only a server may): refused");
            }
            for (byte[] bytes : released.refs()) {
                ValueRef ref = ValueRef.of(bytes);
                peerHolds.remove(ref);
                store.release(ref);
                ValueStore.Arrival partial = arriving.remove(ref); // a relay cut short (ValueLink#relay)
                if (partial != null) {
                    partial.close();
                }
            }
            return true;
        }
        if (message instanceof Message.ComputationEnded e) {
            peerHolds.removeIf(r -> r.computation() == e.computation());
        } else if (message instanceof Message.Routed) {
            // A server hands these values on: it lets go of its copies once this end acknowledges the message, so
            // anything sent back that refers to them (a diffused task that reads one) must carry them again.
            ValueRef.forEachIn(message, peerHolds::remove);
        } else {
            ValueRef.forEachIn(message, peerHolds::add);
        }
        return false;
    }

    /** The connection has closed: parts of values that were arriving go. */
    public void closed() {
        for (ValueStore.Arrival a : arriving.values()) {
            try {
                a.close();
            } catch (IOException e) {
                // the file is gone with the directory at the latest
            }
        }
        arriving.clear();
    }
}
