package org.cx.examples.sw;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Sequences in FASTA text: a {@code >name} line, then the residues on lines of their own. */
public final class Fasta {
    /** One named sequence. */
    public record Sequence(String name, String residues) {
    }

    private Fasta() {
    }

    /** The sequences of FASTA text {@code bytes}. */
    public static List<Sequence> parse(byte[] bytes) {
        List<Sequence> out = new ArrayList<>();
        String name = null;
        StringBuilder residues = new StringBuilder();
        for (String line : new String(bytes, StandardCharsets.US_ASCII).split("\n")) {
            String l = line.strip();
            if (l.startsWith(">")) {
                if (name != null) {
                    out.add(new Sequence(name, residues.toString()));
                }
                name = l.substring(1).strip();
                residues.setLength(0);
            } else if (!l.isEmpty()) {
                if (name == null) {
                    throw new IllegalArgumentException("FASTA text must begin with a '>name' line, not '" + l + "'");
                }
                residues.append(l);
            }
        }
        if (name != null) {
            out.add(new Sequence(name, residues.toString()));
        }
        return out;
    }

    /** Writes {@code sequences} to {@code file}, 60 residues a line. */
    public static void write(Path file, List<Sequence> sequences) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            for (Sequence s : sequences) {
                w.write(">" + s.name() + "\n");
                for (int i = 0; i < s.residues().length(); i += 60) {
                    w.write(s.residues(), i, Math.min(60, s.residues().length() - i));
                    w.write('\n');
                }
            }
        }
    }

    /** {@code count} random sequences named {@code prefix}0, 1 ..., of lengths uniform in [length/2, 3·length/2). */
    public static List<Sequence> random(Random random, String prefix, int count, int length) {
        List<Sequence> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            int n = length / 2 + random.nextInt(Math.max(1, length));
            StringBuilder s = new StringBuilder(n);
            for (int i = 0; i < n; i++) {
                s.append(SmithWaterman.ALPHABET.charAt(random.nextInt(SmithWaterman.ALPHABET.length())));
            }
            out.add(new Sequence(prefix + k, s.toString()));
        }
        return out;
    }
}
