package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;

/**
 * The exactly-once channels between servers, as one server holds them: for each channel it sends on, the messages
 * not acknowledged yet; for each channel it receives on, the highest number applied. No I/O.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>The sender numbers a message on channel (from, to) one above the last ({@link #send}) and keeps it until it
 *       is acknowledged. The message is recorded and mirrored before it is transmitted.</li>
 *   <li>The receiver applies message k only right after k − 1 ({@link #receive}): an earlier number is a duplicate
 *       (acknowledged again, not applied), a later one means one was lost on a broken link (dropped; the sender
 *       sends it again).</li>
 *   <li>The receiver acknowledges, after its own commit, every message up to its mark; the sender forgets them
 *       ({@link #acknowledge}).</li>
 *   <li>After a repair, every unacknowledged message is sent again ({@link #unacknowledged}). An heir adopts the
 *       channels of the server it took over from its copy ({@link #adopt}) and continues them: so nothing is lost or
 *       applied twice across a failure.</li>
 * </ol>
 * A channel's key packs (from, to) into one long ({@link #channel}).
 */
final class ExactlyOnceChannels {

    /** What {@link #receive} found. */
    enum Receipt { NEXT, DUPLICATE, GAP }

    private final Map<Long, TreeMap<Long, RoutedPayload>> outgoing = new HashMap<>();
    private final Map<Long, Long> nextSeq = new HashMap<>();
    private final Map<Long, Long> received = new HashMap<>();

    /** The key of the channel from server {@code from} to server {@code to}. */
    static long channel(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }

    static int channelFrom(long channel) {
        return (int) (channel >>> 32);
    }

    static int channelTo(long channel) {
        return (int) channel;
    }

    /** Numbers {@code payload} on channel ({@code from}, {@code to}) and keeps it until acknowledged; its number. */
    long send(int from, int to, RoutedPayload payload) {
        long channel = channel(from, to);
        long seq = nextSeq.merge(channel, 1L, Long::sum);
        outgoing.computeIfAbsent(channel, k -> new TreeMap<>()).put(seq, payload);
        return seq;
    }

    /** Message {@code seq} arrived on channel ({@code from}, {@code to}): whether to apply it. */
    Receipt receive(int from, int to, long seq) {
        long channel = channel(from, to);
        long mark = received.getOrDefault(channel, 0L);
        if (seq == mark + 1) {
            received.put(channel, seq);
            return Receipt.NEXT;
        }
        return seq > mark + 1 ? Receipt.GAP : Receipt.DUPLICATE;
    }

    /** The highest number applied on channel ({@code from}, {@code to}); 0 if none. */
    long mark(int from, int to) {
        return received.getOrDefault(channel(from, to), 0L);
    }

    /** The receiver has applied every message up to {@code upTo}: forget them. The ones that were still kept. */
    List<RoutedPayload> acknowledge(int from, int to, long upTo) {
        TreeMap<Long, RoutedPayload> unacked = outgoing.get(channel(from, to));
        if (unacked == null || unacked.headMap(upTo, true).isEmpty()) {
            return List.of();
        }
        List<RoutedPayload> acknowledged = new ArrayList<>(unacked.headMap(upTo, true).values());
        unacked.headMap(upTo, true).clear();
        return acknowledged;
    }

    /** Every message sent and not acknowledged, channel by channel in number order. */
    List<Message.Routed> unacknowledged() {
        List<Message.Routed> all = new ArrayList<>();
        for (Map.Entry<Long, TreeMap<Long, RoutedPayload>> channel : outgoing.entrySet()) {
            int from = channelFrom(channel.getKey());
            int to = channelTo(channel.getKey());
            for (Map.Entry<Long, RoutedPayload> m : channel.getValue().entrySet()) {
                all.add(new Message.Routed(from, to, m.getKey(), m.getValue()));
            }
        }
        return all;
    }

    /** The channels as mirror operations, for a snapshot. */
    void snapshot(List<MirrorOp> ops) {
        for (Message.Routed m : unacknowledged()) {
            ops.add(new MirrorOp.Send(m.from(), m.to(), m.seq(), m.payload()));
        }
        for (Map.Entry<Long, Long> mark : received.entrySet()) {
            ops.add(new MirrorOp.Received(channelFrom(mark.getKey()), channelTo(mark.getKey()), mark.getValue()));
        }
    }

    /** Continues a failed server's channels from its copy: its unacknowledged messages and its marks. */
    void adopt(Map<Long, TreeMap<Long, RoutedPayload>> theirOutgoing, Map<Long, Long> theirReceived) {
        for (Map.Entry<Long, TreeMap<Long, RoutedPayload>> channel : theirOutgoing.entrySet()) {
            outgoing.computeIfAbsent(channel.getKey(), k -> new TreeMap<>()).putAll(channel.getValue());
        }
        for (Map.Entry<Long, Long> mark : theirReceived.entrySet()) {
            received.merge(mark.getKey(), mark.getValue(), Math::max);
        }
    }
}
