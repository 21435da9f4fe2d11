package org.cx.server;

/**
 * How a server splits its idle workers (its need) among its neighbours, so that each neighbour is asked for a part
 * and the parts add up to the need, or, when no neighbour has anything to give, each is asked for an even share
 * rounded up. Pure; see {@code ServerNetwork#sharesOfNeed}.
 */
final class NeedSplit {
    private NeedSplit() {
    }

    /**
     * The share of {@code need} asked of neighbour {@code index}: in proportion to {@code weights} (what each
     * neighbour could give), rounded down, plus one while a remainder is left, handed to the heaviest neighbours
     * first (ties: the first in the list); the shares add up to the need. With no weight anywhere (no neighbour
     * said it had anything) every neighbour is asked for an even share rounded up: one of them may have got tasks
     * since it last reported, and waiting for the next report to find it left idle workers idle for a diffusion
     * period at the end of a run.
     */
    static int share(int need, long[] weights, int index) {
        int k = weights.length;
        if (need <= 0 || index < 0 || index >= k) {
            return 0;
        }
        long total = 0;
        for (long w : weights) {
            total += Math.max(0, w);
        }
        if (total == 0) {
            return (need + k - 1) / k;
        }
        long left = need;
        for (long w : weights) {
            left -= need * Math.max(0, w) / total;
        }
        long mine = Math.max(0, weights[index]);
        int ahead = 0;
        for (int i = 0; i < k; i++) {
            long w = Math.max(0, weights[i]);
            if (w > mine || (w == mine && i < index)) {
                ahead++;
            }
        }
        return (int) (need * mine / total) + (ahead < left ? 1 : 0);
    }

    /**
     * Need passed on two hops: how many of the idle workers next door that this server cannot feed each neighbour is
     * asked to feed through it. {@code ownNeed[i]}: the idle workers neighbour {@code i} asked this server to feed as
     * its own share; {@code spare}: what this server can give itself (fresh tasks beyond its own idle workers, and
     * the prefetched copies it could revoke). Only neighbours that reported something to give ({@code weights}) are
     * asked, each for its {@link #share} of the need of the others: never for its own idle workers, and a
     * neighbour's passed-on need is not passed on again.
     */
    static int[] passedOn(int[] ownNeed, int spare, long[] weights) {
        int total = 0;
        for (int need : ownNeed) {
            total += Math.max(0, need);
        }
        int[] shares = new int[weights.length];
        for (int i = 0; i < shares.length; i++) {
            int unmet = Math.max(0, total - Math.max(0, ownNeed[i]) - spare);
            shares[i] = weights[i] <= 0 ? 0 : share(unmet, weights, i);
        }
        return shares;
    }
}
