package org.cx.server;

/**
 * How a server splits its idle workers (its need) among its neighbours, so that each neighbour is asked for a part
 * and the parts add up to the need. Pure; see {@code ServerNetwork#sharesOfNeed}.
 */
final class NeedSplit {
    private NeedSplit() {
    }

    /**
     * The share of {@code need} asked of neighbour {@code index}: in proportion to {@code weights} (what each
     * neighbour could give), rounded down, plus one while a remainder is left, handed to the heaviest neighbours
     * first (ties: the first in the list). With no weight anywhere the split is even, and the remainder goes to
     * the neighbours from {@code turn} (modulo their number) on, so that it moves round with each report.
     */
    static int share(int need, long[] weights, int index, int turn) {
        int k = weights.length;
        if (need <= 0 || index < 0 || index >= k) {
            return 0;
        }
        long total = 0;
        for (long w : weights) {
            total += Math.max(0, w);
        }
        if (total == 0) {
            int rank = Math.floorMod(index - turn, k);
            return need / k + (rank < need % k ? 1 : 0);
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
}
