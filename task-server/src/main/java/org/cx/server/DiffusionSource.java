package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.wire.MirrorOp;
import org.cx.wire.ReadyTask;
import org.cx.wire.RoutedPayload;

/**
 * The {@link Scheduler}'s side of diffusion: the fresh ready tasks it gives up to a neighbouring server (best first,
 * grouped by computation), the seeds it offers a neighbour with idle workers, and the transfers it takes in. Which
 * neighbour gets how many is {@link Diffusion}'s to decide; this part only moves tasks, whole, in one command.
 */
public final class DiffusionSource {
    private final Scheduler s;

    DiffusionSource(Scheduler scheduler) {
        this.s = scheduler;
    }

    /**
     * Takes up to {@code max} fresh ready tasks (no producer holds them: "a task that has been downloaded stays")
     * to diffuse to another server, best first, grouped by computation.
     */
    public List<RoutedPayload.Transfer> takeFresh(int max) {
        Map<Long, List<TaskEntry>> taken = new HashMap<>();
        List<TaskEntry> validatedHere = new ArrayList<>();
        for (int n = 0; n < max; n++) {
            TaskEntry top = s.ready.peek();
            if (top == null || top.holderCount() > 0) {
                break;
            }
            s.ready.remove(top);
            ComputationState c = s.computations.get(top.computation);
            if (c.quorum > 1) {
                validatedHere.add(top); // validated where it was submitted: its opinions are kept there
                continue;
            }
            c.forget(top);
            c.storedBytes -= top.bytes();
            if (s.log.active()) {
                s.log.record(new MirrorOp.Remove(top.envelope.id()));
            }
            taken.computeIfAbsent(c.id, k -> new ArrayList<>()).add(top);
        }
        List<RoutedPayload.Transfer> transfers = new ArrayList<>(taken.size());
        for (Map.Entry<Long, List<TaskEntry>> group : taken.entrySet()) {
            List<TaskEntry> entries = group.getValue();
            ReadyTask[] tasks = new ReadyTask[entries.size()];
            int[] homes = new int[entries.size()];
            for (int i = 0; i < tasks.length; i++) {
                tasks[i] = entries.get(i).toReadyTask();
                homes[i] = entries.get(i).home;
            }
            ComputationState c = s.computations.get(group.getKey());
            transfers.add(new RoutedPayload.Transfer(c.id, c.origin, c.bundle, c.owner, c.priority, tasks, homes,
                    c.untold()));
            s.counters.tasksDiffusedOut += tasks.length;
        }
        for (TaskEntry e : validatedHere) {
            s.ready.add(e);
        }
        return transfers;
    }

    /**
     * A seed for neighbour {@code server}: the best fresh task, if it was spawned here, no task of its computation
     * has passed between this server and {@code server} yet, and the computation is young here (fewer completions
     * here than this server has workers); null otherwise.
     */
    public RoutedPayload.Transfer takeSeed(int server) {
        TaskEntry top = s.ready.peek();
        if (top == null || top.holderCount() > 0 || !top.spawnedHere) {
            return null;
        }
        ComputationState c = s.computations.get(top.computation);
        if (c.completedHere >= Math.max(1, s.workers()) || !c.seeded.add(server)) {
            return null;
        }
        return takeFresh(1).getFirst();
    }

    /** Tasks of {@code computation} went to, or came from, {@code server}: it needs no seed of it from here. */
    public void seeded(long computation, int server) {
        ComputationState c = s.computations.get(computation);
        if (c != null) {
            c.seeded.add(server);
        }
    }

    /** Ready tasks diffused here from neighbour {@code from}. */
    public void accept(RoutedPayload.Transfer transfer, int from) {
        ComputationState c = s.branch(transfer.computation(), transfer.origin(), transfer.bundle());
        if (c == null) {
            return;
        }
        if (c.origin != s.self() && c.tasks.isEmpty()) { // none here: the sender knows whose it is and how urgent
            c.owner = transfer.owner(); // the ledger counts no tasks here for it yet (none of an owner ""'s)
            s.reprioritize(c, transfer.priority());
        }
        c.seeded.add(from);
        c.add(transfer.tally());
        s.replication().tallied(c);
        ReadyTask[] tasks = transfer.tasks();
        for (int i = 0; i < tasks.length; i++) {
            s.store(c, tasks[i].task(), transfer.homes()[i], tasks[i].inputs(), "transferred");
        }
        s.counters.tasksDiffusedIn += tasks.length;
        s.dispatch();
    }
}
