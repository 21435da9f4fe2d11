package org.cx.server;

import java.util.List;
import java.util.Map;
import org.cx.wire.Message;
import org.cx.wire.RoutedPayload;

/**
 * Diffusion as one server does it: it reads the scheduler's load, asks the {@link Diffusion} policy what to do, and
 * does it (loads to the neighbours, transfers and seeds through the exactly-once channels). The protocol's steps are
 * in {@link Diffusion} and docs/architecture.md ("Diffuse"). Event loop only.
 */
final class DiffusionDriver {

    /** What diffusion needs of the network it runs in. */
    interface Network {
        int self();

        /** This server has joined a network of two or more servers. */
        boolean hasNeighbours();

        boolean evicted();

        boolean isMember(int id);

        void send(int id, Message message);

        /** Sends {@code payload} to server {@code to} on the exactly-once channel. */
        void route(int to, RoutedPayload payload);
    }

    private final Scheduler scheduler;
    private final DutyCycle cycle;
    private final Network network;
    private final Diffusion diffusion = new Diffusion();
    /** The servers this one seeds: its children; the primary root also seeds the secondary. */
    private List<Integer> seedTargets = List.of();
    /** A report of a changed need waits for its minimum gap to pass. */
    private boolean reportScheduled;

    DiffusionDriver(Scheduler scheduler, DutyCycle cycle, Network network) {
        this.scheduler = scheduler;
        this.cycle = cycle;
        this.network = network;
        scheduler.setSeeder(this::seedIdleNeighbours);
    }

    /** The topology changed: these are the neighbours now, and the servers this one seeds. */
    void neighboursChanged(List<Integer> neighbours, List<Integer> seeds) {
        diffusion.neighbours(neighbours);
        seedTargets = seeds;
        scheduler.setRemoteIdle(diffusion.remoteIdle());
    }

    List<Integer> neighbours() {
        return diffusion.neighbours();
    }


    /** This server's load as the scheduler has it now, for the diffusion policy. */
    private Diffusion.Local local() {
        return new Diffusion.Local(scheduler.freshCount(), scheduler.demand(), scheduler.idleWaiting(),
                scheduler.queuedCount(), scheduler.workers());
    }

    /** Every diffusion period, and when the need changed: this server's load goes to every neighbour. */
    void diffuse() {
        if (!network.hasNeighbours() || network.evicted()) {
            return;
        }
        Diffusion.Local local = local();
        diffusion.reportSent(local, cycle.now());
        int[] shares = diffusion.sharesOfNeed(local);
        int[] beyond = diffusion.sharesBeyond(local);
        List<Integer> neighbours = diffusion.neighbours();
        for (int i = 0; i < neighbours.size(); i++) {
            network.send(neighbours.get(i), load(local, neighbours.get(i), shares[i], beyond[i]));
        }
    }

    /**
     * What this server tells neighbour {@code to}: its load, the {@code share} of its need it asks that neighbour
     * for, the share of the need next door it passes on to it ({@code beyond}), and the nearest idle workers it
     * knows of further away.
     */
    private Message.Load load(Diffusion.Local local, int to, int share, int beyond) {
        Diffusion.Far far = diffusion.far(local, to);
        return new Message.Load(network.self(), local.fresh(), local.demand(), share, local.workers(), local.queued(),
                beyond, far.hops(), far.idle());
    }

    /**
     * Called after each burst of messages: when the number of idle workers here without a fresh task changed, tell
     * the neighbours now rather than at the next period (at most once a millisecond; a change within that time is
     * told when it is up).
     */
    void afterBurst() {
        if (!network.hasNeighbours()) {
            return;
        }
        reportNeedIfChanged();
        feedIdleNeighbours();
    }

    private void reportNeedIfChanged() {
        if (reportScheduled) {
            return;
        }
        long wait = diffusion.reportWaitNanos(local(), cycle.now());
        if (wait == 0) {
            diffuse();
        } else if (wait > 0) {
            reportScheduled = true;
            cycle.after(wait, () -> {
                reportScheduled = false;
                if (network.hasNeighbours() && !network.evicted()) {
                    reportNeedIfChanged();
                }
            });
        }
    }

    /**
     * Fresh tasks this server's own idle workers do not need go at once to neighbours whose workers are idle (the
     * scheduler holds back prefetch while any are), so that a computation's first tasks spread over the network as
     * fast as they appear.
     */
    private void feedIdleNeighbours() {
        int spare = scheduler.freshCount() - scheduler.idleWaiting();
        if (spare <= 0 || !diffusion.heardNeeds()) {
            return;
        }
        for (Map.Entry<Integer, Integer> asking : diffusion.asking()) {
            int count = Math.min(Math.min(spare, asking.getValue()), Diffusion.MAX_TRANSFER);
            int sent = 0;
            for (RoutedPayload.Transfer t : scheduler.diffusion().takeFresh(count)) {
                transfer(asking.getKey(), t);
                sent += t.tasks().length;
            }
            diffusion.fed(asking.getKey(), sent);
            spare -= sent;
            if (spare <= 0) {
                break;
            }
        }
        int surplus = scheduler.freshCount() - scheduler.demand();
        if (spare > 0 && surplus > 0) {
            sendDownhill(Math.min(spare, surplus));
        }
        scheduler.setRemoteIdle(diffusion.remoteIdle());
    }

    /**
     * Surplus fresh tasks nobody asked for (beyond what this server's own producers asked for) go towards the nearest
     * idle workers a neighbour told of, when they are beyond the two hops need travels: tasks of a server without
     * producers whose neighbours have none either otherwise waited there for good.
     */
    private void sendDownhill(int spare) {
        int toward = diffusion.downhill();
        if (toward < 0) {
            return;
        }
        int count = Math.min(Math.min(spare, diffusion.downhillRoom(toward)), Diffusion.MAX_TRANSFER);
        int sent = 0;
        for (RoutedPayload.Transfer t : scheduler.diffusion().takeFresh(count)) {
            transfer(toward, t);
            sent += t.tasks().length;
        }
        diffusion.fed(toward, sent);
    }

    private void transfer(int to, RoutedPayload.Transfer t) {
        scheduler.diffusion().seeded(t.computation(), to);
        network.route(to, t);
    }

    /**
     * Seeding, called by the scheduler before it hands fresh tasks to its own producers while neighbours have idle
     * workers: each child with idle workers (and the secondary root, for the primary) gets the best fresh task
     * spawned here, if none of its computation has passed between the two servers yet and the computation is young
     * here ({@link Scheduler#takeSeed}). A computation's first levels then spread down the tree while they are
     * still being split, instead of after each server's own workers are all busy: at F(13) on 7 servers the
     * servers two hops from the root got their first task after 20–30 ms, now after 6–15 ms. Only once per
     * computation and server, and only early: sending the first task of every transfer on (tried) moved one task
     * round the network, and seeding at the end sent the last tasks away from idle workers here.
     */
    private void seedIdleNeighbours() {
        for (int target : seedTargets) {
            if (diffusion.wants(target) > 0) {
                RoutedPayload.Transfer seed = scheduler.diffusion().takeSeed(target);
                if (seed != null) {
                    network.route(target, seed);
                    // The scheduler's count of idle workers next door catches up at the target's next Load: updating
                    // it here would dispatch again from inside this dispatch.
                    diffusion.seeded(target);
                }
            }
        }
    }

    /** A neighbour's load (paper §4.2): feed its idle workers, even out the surplus, or answer with a request. */
    void onLoad(Message.Load theirs) {
        if (!network.isMember(theirs.from())) {
            return;
        }
        diffusion.reported(theirs);
        scheduler.setRemoteIdle(diffusion.remoteIdle());
        feedIdleNeighbours();
        Diffusion.Local local = local();
        int count = diffusion.transferCount(local, theirs);
        if (count > 0) {
            for (RoutedPayload.Transfer t : scheduler.diffusion().takeFresh(count)) {
                transfer(theirs.from(), t);
            }
        } else if (diffusion.answers(local, theirs)) {
            int index = diffusion.neighbours().indexOf(theirs.from());
            int share = index < 0 ? 0 : diffusion.sharesOfNeed(local)[index];
            int beyond = index < 0 ? 0 : diffusion.sharesBeyond(local)[index];
            network.send(theirs.from(), load(local, theirs.from(), share, beyond));
        }
    }
}
