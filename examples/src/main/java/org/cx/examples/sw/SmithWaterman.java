package org.cx.examples.sw;

/**
 * Local alignment scores of protein sequences (Smith and Waterman, with Gotoh's affine gaps) under BLOSUM62, gaps
 * costing 11 to open and 1 per residue, as BLAST's defaults: the best score of any alignment of a part of one
 * sequence with a part of the other. Linear space, one pass over the target per query.
 */
public final class SmithWaterman {
    /** The residues, in the order of the matrix's rows and columns. */
    public static final String ALPHABET = "ARNDCQEGHILKMFPSTWYV";
    static final int GAP_OPEN = 11;
    static final int GAP_EXTEND = 1;
    private static final int NEG = -(1 << 20);

    /** BLOSUM62 (Henikoff and Henikoff, 1992), rows and columns in {@link #ALPHABET} order. */
    static final int[][] BLOSUM62 = {
        {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0},
        {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3},
        {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3},
        {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3},
        {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1},
        {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2},
        {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2},
        {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3},
        {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3},
        {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3},
        {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1},
        {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2},
        {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1},
        {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1},
        {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2},
        {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2},
        {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0},
        {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3},
        {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1},
        {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4},
    };

    private SmithWaterman() {
    }

    /** {@code residues} as indices into {@link #ALPHABET}; other letters (X, B, Z, U ...) become A. */
    public static byte[] encode(CharSequence residues) {
        byte[] out = new byte[residues.length()];
        for (int i = 0; i < out.length; i++) {
            int k = ALPHABET.indexOf(Character.toUpperCase(residues.charAt(i)));
            out[i] = (byte) Math.max(k, 0);
        }
        return out;
    }

    /** The best local alignment score of {@code query} and {@code target}, both {@link #encode encoded}. */
    public static int score(byte[] query, byte[] target) {
        int n = query.length;
        int[] h = new int[n + 1]; // H(i, j-1), then H(i, j)
        int[] e = new int[n + 1]; // E(i, j-1): ending in a gap in the query
        java.util.Arrays.fill(e, NEG);
        int open = GAP_OPEN + GAP_EXTEND;
        int best = 0;
        for (byte t : target) {
            int[] row = BLOSUM62[t];
            int diagonal = 0;
            int up = 0;
            int f = NEG;
            for (int i = 1; i <= n; i++) {
                int ei = Math.max(h[i] - open, e[i] - GAP_EXTEND);
                f = Math.max(up - open, f - GAP_EXTEND);
                int hi = Math.max(Math.max(0, diagonal + row[query[i - 1]]), Math.max(ei, f));
                diagonal = h[i];
                h[i] = hi;
                e[i] = ei;
                up = hi;
                if (hi > best) {
                    best = hi;
                }
            }
        }
        return best;
    }
}
