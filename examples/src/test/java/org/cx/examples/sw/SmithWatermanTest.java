package org.cx.examples.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SmithWatermanTest {

    @Test
    void theMatrixIsSymmetric() {
        for (int i = 0; i < 20; i++) {
            for (int j = 0; j < 20; j++) {
                assertEquals(SmithWaterman.BLOSUM62[i][j], SmithWaterman.BLOSUM62[j][i], i + "," + j);
            }
        }
    }

    @Test
    void scoresWorkedExamples() {
        assertEquals(33, score("WWW", "WWW"));
        assertEquals(17, score("AAAWAAA", "AAAAAA"), "ungapped beats a gap costing 12");
        assertEquals(0, score("W", "P"), "no alignment scores below zero");
        assertEquals(8 * 11 - 12, score("WWWWPWWWW", "WWWWWWWW"),
                "one gap (-12) beats P against W (-4) with a W fewer (-11)");
    }

    @Test
    void agreesWithTheFullMatrixOnRandomSequences() {
        long seed = System.nanoTime();
        System.out.println("SmithWatermanTest seed " + seed);
        Random random = new Random(seed);
        for (int k = 0; k < 200; k++) {
            byte[] a = randomSequence(random, 1 + random.nextInt(40));
            byte[] b = randomSequence(random, 1 + random.nextInt(40));
            assertEquals(fullMatrix(a, b), SmithWaterman.score(a, b), "seed " + seed + ", pair " + k);
        }
    }

    private static int score(String a, String b) {
        return SmithWaterman.score(SmithWaterman.encode(a), SmithWaterman.encode(b));
    }

    private static byte[] randomSequence(Random random, int n) {
        byte[] s = new byte[n];
        for (int i = 0; i < n; i++) {
            s[i] = (byte) random.nextInt(4); // few letters: many matches, and gaps worth opening
        }
        return s;
    }

    /** Gotoh's recurrences over the whole matrix, written the textbook way. */
    private static int fullMatrix(byte[] a, byte[] b) {
        int neg = -1_000_000;
        int open = SmithWaterman.GAP_OPEN + SmithWaterman.GAP_EXTEND;
        int ext = SmithWaterman.GAP_EXTEND;
        int[][] h = new int[a.length + 1][b.length + 1];
        int[][] e = new int[a.length + 1][b.length + 1];
        int[][] f = new int[a.length + 1][b.length + 1];
        for (int[] row : e) {
            java.util.Arrays.fill(row, neg);
        }
        for (int[] row : f) {
            java.util.Arrays.fill(row, neg);
        }
        int best = 0;
        for (int i = 1; i <= a.length; i++) {
            for (int j = 1; j <= b.length; j++) {
                e[i][j] = Math.max(h[i][j - 1] - open, e[i][j - 1] - ext);
                f[i][j] = Math.max(h[i - 1][j] - open, f[i - 1][j] - ext);
                h[i][j] = Math.max(0, Math.max(h[i - 1][j - 1] + SmithWaterman.BLOSUM62[a[i - 1]][b[j - 1]],
                        Math.max(e[i][j], f[i][j])));
                best = Math.max(best, h[i][j]);
            }
        }
        return best;
    }
}
