package org.cx.server;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cx.wire.MirrorOp;
import org.cx.wire.Usage;

/**
 * The usage batches a server sealed, or adopted from a server it took over, that the accounting service has not
 * acknowledged. Each is a change of the replicated state ({@link MirrorOp.UsageBatch}, then
 * {@link MirrorOp.UsageAcked}): the server's mirrors hold the batches it has not had acknowledged, and an heir sends
 * them again under the same ids, which the service recognises. A batch goes out only once the mirrors have it (the
 * server sends it after the commit), so usage from completions a failure undid is never sent. Scheduler thread only.
 */
final class UsageBatches {
    private final Map<String, Usage[]> unacknowledged = new LinkedHashMap<>();
    /** Batches to hand to the sender: sealed or adopted since the last {@link #toSend}. */
    private final ArrayDeque<String> fresh = new ArrayDeque<>();
    private long sequence;

    /** Seals {@code rows} as the next batch named {@code prefix} and a sequence number; records it in {@code log}. */
    void seal(String prefix, List<Usage> rows, StateLog log) {
        String id = prefix + "/" + ++sequence;
        Usage[] batch = rows.toArray(Usage[]::new);
        unacknowledged.put(id, batch);
        fresh.add(id);
        if (log.active()) {
            log.record(new MirrorOp.UsageBatch(id, batch));
        }
    }

    /** The service acknowledged batch {@code id}. */
    void acknowledged(String id, StateLog log) {
        if (unacknowledged.remove(id) != null && log.active()) {
            log.record(new MirrorOp.UsageAcked(id));
        }
    }

    /** Takes over the batches a failed server had not had acknowledged, as this server's own. */
    void adopt(Map<String, Usage[]> batches, StateLog log) {
        batches.forEach((id, rows) -> {
            if (unacknowledged.putIfAbsent(id, rows) == null) {
                fresh.add(id);
                if (log.active()) {
                    log.record(new MirrorOp.UsageBatch(id, rows));
                }
            }
        });
    }

    /** The batches to send that were sealed or adopted since the last call, with their rows. */
    Map<String, Usage[]> toSend() {
        Map<String, Usage[]> out = new LinkedHashMap<>();
        for (String id; (id = fresh.poll()) != null; ) {
            Usage[] rows = unacknowledged.get(id);
            if (rows != null) {
                out.put(id, rows);
            }
        }
        return out;
    }

    /** The batches not acknowledged, as changes that rebuild them on a new mirror. */
    void snapshot(List<MirrorOp> ops) {
        unacknowledged.forEach((id, rows) -> ops.add(new MirrorOp.UsageBatch(id, rows)));
    }

    int size() {
        return unacknowledged.size();
    }
}
