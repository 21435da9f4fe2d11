package org.cx.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.wire.Message;

/**
 * The diffusion policy of one server (paper §4.2): what it knows of its neighbours' loads, and the decisions that
 * follow: what share of its idle workers each neighbour is asked to feed, how many fresh tasks go to a neighbour, and
 * when to tell the neighbours of a change. No I/O, no clock: the server's own load and the time are passed in.
 *
 * <h2>Steps</h2> (numbered as in docs/architecture.md, "Diffuse")
 * <ol>
 *   <li>Every period, and at once (at most once per {@link #MIN_REPORT_GAP_NANOS}) when the need it reports
 *       changes, a server sends each neighbour its {@link Message.Load}: fresh tasks, demand, the share of its idle
 *       workers it asks of that neighbour ({@link #sharesOfNeed}), and the share of the need next door it passes on
 *       ({@link #sharesBeyond}). Shares follow what each neighbour last reported it could give
 *       ({@link NeedSplit}).</li>
 *   <li>A server whose surplus exceeds a neighbour's by 2 or more sends it 1 / (neighbours + 1) of the difference
 *       ({@link #transferCount}); one whose surplus is lower answers with its own load ({@link #answers}).</li>
 *   <li>Fresh tasks its own idle workers do not need go at once to neighbours that asked ({@link #wants},
 *       {@link #fed}).</li>
 *   <li>Need travels two hops. Beyond that, each load also says how far the nearest idle workers its sender heard
 *       of are and how many ({@link #far}); what is left of the surplus goes downhill, to the neighbour nearest
 *       them that did not ask ({@link #downhill}).</li>
 * </ol>
 */
final class Diffusion {

    /** Most tasks one diffusion answer moves. */
    static final int MAX_TRANSFER = 64;
    /** A change of the reported need is told at most this often, beside the periodic report. */
    static final long MIN_REPORT_GAP_NANOS = 1_000_000L;
    /**
     * Idle workers further than this are not heard of: a bound on how long a stale report of idle workers that are
     * gone can circle the network (each server adds one hop to the nearest it hears of).
     */
    static final int MAX_HOPS = 32;

    /** This server's own load, as the scheduler has it now. */
    record Local(int fresh, int demand, int idleWaiting, int queued, int workers) {
        /** Idle workers here with no fresh task to give them. */
        int need() {
            return Math.max(0, idleWaiting - fresh);
        }

        /** What this server can give neighbours: fresh tasks its idle workers do not need, and queued copies. */
        int spare() {
            return Math.max(0, fresh - idleWaiting) + queued;
        }

        int surplus() {
            return fresh - demand;
        }
    }

    /** Idle workers {@code hops} from a server (0: its own), {@code idle} of them; {@link #NOWHERE} if none. */
    record Far(int hops, int idle) {
        static final Far NOWHERE = new Far(Message.Load.NOWHERE, 0);

        /** Whether these idle workers are heard of and nearer than {@code other}'s, or as near and more of them. */
        boolean nearerThan(Far other) {
            return idle > 0 && hops < MAX_HOPS && (hops < other.hops || hops == other.hops && idle > other.idle);
        }
    }

    private List<Integer> neighbours = List.of();
    /** Per neighbour: prefetched copies its producers have not started, as it last reported them. */
    private final Map<Integer, Integer> queued = new HashMap<>();
    /** Per neighbour: its fresh tasks less what its producers asked for, as it last reported them. */
    private final Map<Integer, Integer> surplus = new HashMap<>();
    /** Per neighbour: the idle workers it asked this server to feed, its own and passed on, less what went since. */
    private final Map<Integer, Integer> need = new HashMap<>();
    /** Per neighbour: the part of {@link #need} that is its own idle workers (not passed on). */
    private final Map<Integer, Integer> ownNeed = new HashMap<>();
    /** Per neighbour: the nearest idle workers it reported, less the tasks sent it since. */
    private final Map<Integer, Far> far = new HashMap<>();
    private long lastReportNanos;
    /** {@link #reportedNeed} as last told to the neighbours. */
    private int lastNeedReported;

    /** The neighbours are now {@code neighbours}: what was known of others is forgotten. */
    void neighbours(List<Integer> now) {
        neighbours = now;
        need.keySet().removeIf(id -> !now.contains(id));
        ownNeed.keySet().removeIf(id -> !now.contains(id));
        surplus.keySet().removeIf(id -> !now.contains(id));
        queued.keySet().removeIf(id -> !now.contains(id));
        far.keySet().removeIf(id -> !now.contains(id));
    }

    List<Integer> neighbours() {
        return neighbours;
    }

    /** A neighbour's load arrived. */
    void reported(Message.Load theirs) {
        need.put(theirs.from(), theirs.need() + theirs.beyond());
        ownNeed.put(theirs.from(), theirs.need());
        surplus.put(theirs.from(), theirs.fresh() - theirs.demand());
        queued.put(theirs.from(), theirs.queued());
        far.put(theirs.from(), new Far(theirs.farHops(), theirs.farIdle()));
    }

    /** The idle workers next door this server was asked to feed, in all. */
    int remoteIdle() {
        int idle = 0;
        for (int n : need.values()) {
            idle += Math.max(0, n);
        }
        return idle;
    }

    /**
     * The parts of this server's need each neighbour (in {@link #neighbours} order) is asked to feed, in proportion
     * to what each could give as it last reported it. Asking every neighbour for the whole need, or for a share
     * rounded up, brought in up to one load per neighbour, and the surplus travelled on: the last tasks of a run
     * moved many times before they ran. Only when no neighbour reported anything to give is each asked for a share
     * rounded up.
     */
    int[] sharesOfNeed(Local local) {
        int[] shares = new int[neighbours.size()];
        int needHere = local.need();
        if (needHere == 0) {
            return shares;
        }
        long[] weights = weights();
        for (int i = 0; i < shares.length; i++) {
            shares[i] = NeedSplit.share(needHere, weights, i);
        }
        return shares;
    }

    /**
     * The idle workers next door this server can feed neither from spare fresh tasks nor by revoking queued copies,
     * passed on to the neighbours that can give ({@link NeedSplit#passedOn}): a task queued two hops from an idle
     * worker otherwise waited behind a running task until a worker nearer it was idle too.
     */
    int[] sharesBeyond(Local local) {
        int[] own = new int[neighbours.size()];
        for (int i = 0; i < own.length; i++) {
            own[i] = ownNeed.getOrDefault(neighbours.get(i), 0);
        }
        return NeedSplit.passedOn(own, local.spare(), weights());
    }

    /** What each neighbour could give, as it last reported it: surplus fresh tasks and queued copies. */
    private long[] weights() {
        long[] weights = new long[neighbours.size()];
        for (int i = 0; i < weights.length; i++) {
            int n = neighbours.get(i);
            weights[i] = Math.max(0, surplus.getOrDefault(n, 0)) + queued.getOrDefault(n, 0);
        }
        return weights;
    }

    /** The need this server reports, here and passed on: when it changes, the neighbours are told at once. */
    int reportedNeed(Local local) {
        int nextDoor = 0;
        for (int own : ownNeed.values()) {
            nextDoor += Math.max(0, own);
        }
        return local.need() + Math.max(0, nextDoor - local.spare());
    }

    /** This server's loads went to every neighbour at {@code nowNanos}. */
    void reportSent(Local local, long nowNanos) {
        lastReportNanos = nowNanos;
        lastNeedReported = reportedNeed(local);
    }

    /**
     * Whether the neighbours must hear of a change of the reported need: -1 if nothing changed, 0 if they are told
     * now, else how many nanoseconds to wait before telling them (the last report was under
     * {@link #MIN_REPORT_GAP_NANOS} ago).
     */
    long reportWaitNanos(Local local, long nowNanos) {
        if (reportedNeed(local) == lastNeedReported) {
            return -1;
        }
        return Math.max(0, lastReportNanos + MIN_REPORT_GAP_NANOS - nowNanos);
    }

    /** Whether any neighbour has told this server its need since it became a neighbour. */
    boolean heardNeeds() {
        return !need.isEmpty();
    }

    /** The neighbours that asked this server to feed idle workers, each with how many it still asks for. */
    List<Map.Entry<Integer, Integer>> asking() {
        List<Map.Entry<Integer, Integer>> asking = new ArrayList<>();
        for (Map.Entry<Integer, Integer> e : need.entrySet()) {
            if (e.getValue() > 0) {
                asking.add(Map.entry(e.getKey(), e.getValue()));
            }
        }
        return asking;
    }

    /** How many fresh tasks neighbour {@code id} still asks this server for. */
    int wants(int id) {
        return need.getOrDefault(id, 0);
    }

    /** {@code sent} fresh tasks went to neighbour {@code id} against what it asked for, or downhill. */
    void fed(int id, int sent) {
        need.computeIfPresent(id, (k, n) -> n - sent);
        ownNeed.merge(id, -sent, (own, fedNow) -> Math.max(0, own + fedNow));
        far.computeIfPresent(id, (k, f) -> f.idle() > sent ? new Far(f.hops(), f.idle() - sent) : Far.NOWHERE);
    }

    /**
     * The nearest idle workers this server tells neighbour {@code to} of (split horizon: not those it heard of from
     * {@code to}, so that two servers never send each other's news back): its own idle workers without a fresh task,
     * else the nearest a neighbour reported, one hop further and less the surplus this server sends them itself
     * (fresh tasks beyond what its producers asked for); {@link Far#NOWHERE} when that covers them, or none is known
     * within {@link #MAX_HOPS}.
     */
    Far far(Local local, int to) {
        if (local.need() > 0) {
            return new Far(0, local.need());
        }
        Far nearest = Far.NOWHERE;
        for (Map.Entry<Integer, Far> e : far.entrySet()) {
            Far f = e.getValue();
            if (e.getKey() != to && f.nearerThan(nearest)) {
                nearest = f;
            }
        }
        int left = nearest.idle() - Math.max(0, local.surplus());
        return left > 0 ? new Far(nearest.hops() + 1, left) : Far.NOWHERE;
    }

    /**
     * Where spare fresh tasks go that no neighbour asked for: the neighbour that reported the nearest idle workers,
     * at least one hop from it (its own idle workers ask for themselves) and not asking this server (what it asks
     * for is fed first), or -1. Need reaches two hops; this reaches a server whose tasks are further from any idle
     * worker, such as one without producers whose neighbours have none either.
     */
    int downhill() {
        int best = -1;
        Far nearest = Far.NOWHERE;
        for (int n : neighbours) {
            Far f = far.get(n);
            if (f != null && f.hops() >= 1 && wants(n) <= 0 && f.nearerThan(nearest)) {
                best = n;
                nearest = f;
            }
        }
        return best;
    }

    /** How many tasks neighbour {@code id} can take downhill: the idle workers it reported, less what went since. */
    int downhillRoom(int id) {
        Far f = far.get(id);
        return f == null ? 0 : f.idle();
    }

    /** A seed went to neighbour {@code id}. */
    void seeded(int id) {
        need.merge(id, -1, Integer::sum);
    }

    /**
     * How many fresh tasks to send a neighbour whose load is {@code theirs}, to even out the surplus: its share of
     * the difference, 1 / (neighbours + 1), as in Cybenko's diffusion (half to each overshot when several neighbours
     * of one server were short at once, and the surplus moved back and forth); never more than this server's
     * surplus, never to a server without workers (tasks there would only wait). 0: none.
     */
    int transferCount(Local local, Message.Load theirs) {
        int mine = local.surplus();
        int other = theirs.fresh() - theirs.demand();
        if (mine > 0 && theirs.workers() > 0 && mine - other >= 2) {
            return Math.min(MAX_TRANSFER, Math.min(mine, Math.max(1, (mine - other) / (neighbours.size() + 1))));
        }
        return 0;
    }

    /** Whether this server answers a neighbour's load with its own: a request, its surplus being clearly lower. */
    boolean answers(Local local, Message.Load theirs) {
        // Never together with a transfer: that needs this server's surplus to be the larger by 2 or more.
        return theirs.fresh() - theirs.demand() - local.surplus() >= 2 && local.workers() > 0;
    }
}
