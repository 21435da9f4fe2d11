package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cx.wire.MirrorOp;
import org.cx.wire.Usage;

/**
 * A server's usage as replicated state, so that a server's failure neither loses nor repeats any: the usage of the
 * completions of each burst goes to the mirrors with them ({@link MirrorOp.UsageDelta}); once a second the deltas
 * and the rest are sealed as a batch ({@link MirrorOp.UsageBatch}), which the server sends once its mirrors have it,
 * until the accounting service acknowledges it ({@link MirrorOp.UsageAcked}). An heir seals the deltas of the server
 * it took over with its own, and sends that server's unacknowledged batches again under their ids, which the service
 * recognises. Scheduler thread only.
 */
final class UsageBatches {
    private final Map<String, Usage[]> unacknowledged = new LinkedHashMap<>();
    /** Usage since the last batch was sealed, as the mirrors have it. */
    private final List<Usage> open = new ArrayList<>();
    /** Batches to hand to the sender: sealed or adopted since the last {@link #toSend}. */
    private final ArrayDeque<String> fresh = new ArrayDeque<>();
    private long sequence;

    /** Usage of the completions applied in this burst: recorded with them. */
    void delta(List<Usage> rows, StateLog log) {
        open.addAll(rows);
        if (log.active()) {
            log.record(new MirrorOp.UsageDelta(rows.toArray(Usage[]::new)));
        }
    }

    /**
     * Seals the deltas and {@code rows} as the next batch named {@code prefix} and a sequence number, unless there is
     * nothing to seal; records it in {@code log}.
     */
    void seal(String prefix, List<Usage> rows, StateLog log) {
        open.addAll(rows);
        if (open.isEmpty()) {
            return;
        }
        String id = prefix + "/" + ++sequence;
        Usage[] batch = merged(open);
        open.clear();
        unacknowledged.put(id, batch);
        fresh.add(id);
        if (log.active()) {
            log.record(new MirrorOp.UsageBatch(id, batch, true));
        }
    }

    /** {@code rows} with the rows of equal keys added up. */
    private static Usage[] merged(List<Usage> rows) {
        Map<List<Object>, Usage> byKey = new LinkedHashMap<>();
        for (Usage u : rows) {
            byKey.merge(u.key(), u, Usage::plus);
        }
        return byKey.values().toArray(Usage[]::new);
    }

    /** The service acknowledged batch {@code id}. */
    void acknowledged(String id, StateLog log) {
        if (unacknowledged.remove(id) != null && log.active()) {
            log.record(new MirrorOp.UsageAcked(id));
        }
    }

    /**
     * Takes over what a failed server had not had acknowledged: its batches, to send again as they are, and its
     * usage since its last batch, to seal with this server's next.
     */
    void adopt(Map<String, Usage[]> batches, List<Usage> unsealed, StateLog log) {
        batches.forEach((id, rows) -> {
            if (unacknowledged.putIfAbsent(id, rows) == null) {
                fresh.add(id);
                if (log.active()) {
                    log.record(new MirrorOp.UsageBatch(id, rows, false));
                }
            }
        });
        if (!unsealed.isEmpty()) {
            delta(List.copyOf(unsealed), log);
        }
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

    /** The batches not acknowledged and the usage not sealed, as changes that rebuild them on a new mirror. */
    void snapshot(List<MirrorOp> ops) {
        unacknowledged.forEach((id, rows) -> ops.add(new MirrorOp.UsageBatch(id, rows, false)));
        if (!open.isEmpty()) {
            ops.add(new MirrorOp.UsageDelta(open.toArray(Usage[]::new)));
        }
    }

    int size() {
        return unacknowledged.size();
    }
}
