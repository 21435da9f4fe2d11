package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cx.wire.MirrorOp;
import org.cx.wire.Usage;
import org.junit.jupiter.api.Test;

/** Usage batches as replicated state: sealed, mirrored, acknowledged, snapshotted and adopted by an heir. */
class UsageBatchesTest {
    /** A state log that keeps what is recorded. */
    private static final class Recorded implements StateLog {
        final List<MirrorOp> ops = new ArrayList<>();

        @Override
        public boolean active() {
            return true;
        }

        @Override
        public void record(MirrorOp op) {
            ops.add(op);
        }
    }

    private static Usage row(long executions) {
        return new Usage(0, Usage.Kind.ACCEPTED, "alice", 7, "p", "bob", "c2", executions, 1, 1, 0, 0, 0);
    }

    @Test
    void anHeirSendsWhatTheFailedServerHadNotHadAcknowledgedUnderTheSameIds() {
        Recorded log = new Recorded();
        UsageBatches server = new UsageBatches();
        server.seal("s1/run", List.of(row(1)), log);
        server.seal("s1/run", List.of(row(2)), log);
        assertEquals(List.of("s1/run/1", "s1/run/2"), List.copyOf(server.toSend().keySet()));
        assertEquals(Map.of(), server.toSend(), "each batch is handed over once");
        server.acknowledged("s1/run/1", log);
        server.seal("s1/run", List.of(row(3)), log);
        server.delta(List.of(row(4)), log); // applied in a burst, not sealed yet
        server.delta(List.of(row(5)), log);

        Replica mirror = new Replica();
        mirror.offer(1, true, new MirrorOp[0]);
        mirror.offer(2, false, log.ops.toArray(MirrorOp[]::new));
        assertEquals(List.of("s1/run/2", "s1/run/3"), List.copyOf(mirror.usage().keySet()));
        assertEquals(List.of(4L, 5L), mirror.usageOpen().stream().map(Usage::executions).toList());

        List<MirrorOp> snapshot = new ArrayList<>();
        server.snapshot(snapshot);
        Replica fresh = new Replica();
        fresh.offer(5, true, snapshot.toArray(MirrorOp[]::new));
        assertEquals(mirror.usage().keySet(), fresh.usage().keySet(), "a new mirror gets them in the snapshot");
        assertEquals(2, fresh.usageOpen().size());

        Recorded heirLog = new Recorded();
        UsageBatches heir = new UsageBatches();
        heir.adopt(mirror.usage(), mirror.usageOpen(), heirLog);
        Map<String, Usage[]> again = heir.toSend();
        assertEquals(List.of("s1/run/2", "s1/run/3"), List.copyOf(again.keySet()));
        assertEquals(2, again.get("s1/run/2")[0].executions());
        assertEquals(3, heirLog.ops.size(), "the heir's own mirrors hold them now, and the unsealed usage");
        heir.seal("s2/run", List.of(), heirLog);
        Usage[] sealed = heir.toSend().get("s2/run/1");
        assertEquals(1, sealed.length, "the failed server's unsealed usage, merged");
        assertEquals(9, sealed[0].executions());
        heir.acknowledged("s1/run/2", heirLog);
        assertEquals(2, heir.size());
    }
}
