package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cx.wire.Message;
import org.cx.wire.MirrorOp;
import org.cx.wire.RoutedPayload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExactlyOnceChannelsTest {

    private static RoutedPayload payload(String reason) {
        return new RoutedPayload.Failure(1L, "/", reason);
    }

    @Test
    void messagesAreNumberedPerChannelFromOne() {
        ExactlyOnceChannels c = new ExactlyOnceChannels();
        assertEquals(1, c.send(1, 2, payload("a")));
        assertEquals(2, c.send(1, 2, payload("b")));
        assertEquals(1, c.send(1, 3, payload("c")));
        assertEquals(3, c.unacknowledged().size());
    }

    @ParameterizedTest(name = "mark {0}, message {1}: {2}")
    @CsvSource({
        "0, 1, NEXT",
        "0, 2, GAP",
        "3, 4, NEXT",
        "3, 3, DUPLICATE",
        "3, 1, DUPLICATE",
        "3, 9, GAP",
    })
    void aMessageIsAppliedOnlyRightAfterTheLastOne(long mark, long seq, ExactlyOnceChannels.Receipt expected) {
        ExactlyOnceChannels c = new ExactlyOnceChannels();
        for (long k = 1; k <= mark; k++) {
            assertEquals(ExactlyOnceChannels.Receipt.NEXT, c.receive(2, 1, k));
        }
        assertEquals(expected, c.receive(2, 1, seq));
        assertEquals(expected == ExactlyOnceChannels.Receipt.NEXT ? seq : mark, c.mark(2, 1));
    }

    @Test
    void anAcknowledgementForgetsEverythingUpToItsNumber() {
        ExactlyOnceChannels c = new ExactlyOnceChannels();
        for (int i = 0; i < 4; i++) {
            c.send(1, 2, payload("m" + i));
        }
        List<RoutedPayload> first = new ArrayList<>();
        for (Message.Routed m : c.unacknowledged().subList(0, 2)) {
            first.add(m.payload());
        }
        assertEquals(first, c.acknowledge(1, 2, 2), "the payloads acknowledged, in order");
        assertEquals(List.of(), c.acknowledge(1, 2, 2), "already forgotten");
        assertEquals(List.of(), c.acknowledge(1, 3, 9), "no such channel");
        List<Long> left = c.unacknowledged().stream().map(Message.Routed::seq).toList();
        assertEquals(List.of(3L, 4L), left);
    }

    @Test
    void anHeirContinuesTheChannelsOfTheServerItTookOver() {
        ExactlyOnceChannels heir = new ExactlyOnceChannels();
        heir.receive(3, 2, 1);
        TreeMap<Long, RoutedPayload> theirs = new TreeMap<>(Map.of(5L, payload("x")));
        heir.adopt(Map.of(ExactlyOnceChannels.channel(1, 3), theirs),
                Map.of(ExactlyOnceChannels.channel(3, 1), 7L, ExactlyOnceChannels.channel(3, 2), 0L));
        assertEquals(List.of(new Message.Routed(1, 3, 5, payload("x"))), heir.unacknowledged(),
                "the failed server's unacknowledged message is sent again from here");
        assertEquals(ExactlyOnceChannels.Receipt.DUPLICATE, heir.receive(3, 1, 7), "applied by the failed server");
        assertEquals(ExactlyOnceChannels.Receipt.NEXT, heir.receive(3, 1, 8));
        assertEquals(1, heir.mark(3, 2), "a mark never goes back");
    }

    @Test
    void aSnapshotHoldsTheUnacknowledgedMessagesAndTheMarks() {
        ExactlyOnceChannels c = new ExactlyOnceChannels();
        c.send(1, 2, payload("a"));
        c.receive(2, 1, 1);
        List<MirrorOp> ops = new ArrayList<>();
        c.snapshot(ops);
        assertEquals(List.of(new MirrorOp.Send(1, 2, 1, payload("a")), new MirrorOp.Received(2, 1, 1)), ops);
    }

    @Test
    void channelKeysKeepBothEnds() {
        long key = ExactlyOnceChannels.channel(70_000, 3);
        assertEquals(70_000, ExactlyOnceChannels.channelFrom(key));
        assertEquals(3, ExactlyOnceChannels.channelTo(key));
    }
}
