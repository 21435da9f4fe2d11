package org.cx.examples.sw;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Makes a test database and queries: {@code DIR/db/part-NNN.fa} of random protein sequences, with each query planted
 * once in it (named {@code planted-QUERY}), and {@code DIR/queries.fa}. Run as
 * {@code java -cp sw-app.jar org.cx.examples.sw.SwData DIR PARTS SEQUENCES LENGTH QUERIES SEED}.
 */
public final class SwData {
    private SwData() {
    }

    /** What {@link #write} made. */
    public record Made(Path database, Path queries, List<Fasta.Sequence> queryList, long bytes) {
    }

    public static Made write(Path dir, int parts, int sequences, int length, int queries, long seed)
            throws IOException {
        if (parts < 1 || sequences < parts || length < 2 || queries < 1) {
            throw new IllegalArgumentException("need PARTS >= 1, SEQUENCES >= PARTS, LENGTH >= 2, QUERIES >= 1");
        }
        Random random = new Random(seed);
        List<Fasta.Sequence> query = Fasta.random(random, "q", queries, length);
        List<List<Fasta.Sequence>> byPart = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            byPart.add(new ArrayList<>(Fasta.random(random, "s" + p + "-", sequences / parts, length)));
        }
        for (Fasta.Sequence q : query) {
            List<Fasta.Sequence> part = byPart.get(random.nextInt(parts));
            part.add(random.nextInt(part.size() + 1), new Fasta.Sequence("planted-" + q.name(), q.residues()));
        }
        Path db = Files.createDirectories(dir.resolve("db"));
        long bytes = 0;
        for (int p = 0; p < parts; p++) {
            Path file = db.resolve(String.format("part-%03d.fa", p));
            Fasta.write(file, byPart.get(p));
            bytes += Files.size(file);
        }
        Path q = dir.resolve("queries.fa");
        Fasta.write(q, query);
        return new Made(db, q, query, bytes);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 6) {
            System.err.println("usage: SwData DIR PARTS SEQUENCES LENGTH QUERIES SEED");
            System.exit(2);
        }
        Made made = write(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                Integer.parseInt(args[3]), Integer.parseInt(args[4]), Long.parseLong(args[5]));
        System.out.println("wrote " + made.bytes() + " bytes of database in " + made.database() + " and the queries in "
                + made.queries());
    }
}
