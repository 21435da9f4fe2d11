package org.cx.examples.sw;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskContext;
import org.cx.api.TaskId;

/**
 * Scores query sequences against a sequence database, as Legion's complib did: the database is a directory of FASTA
 * files ({@code *.fa}), in the federated file service ({@code cx:/path}, read through {@link TaskContext#files()})
 * or on the producers' own disks (a plain path). This task lists the directory and stores one {@link ScorePart} per
 * file, which reads its file where the task runs, and a {@link Merge} of their best hits. The value is a
 * {@link Hit}[]: the best {@code top} of each query.
 */
public final class Search extends Task {
    private final String[] names;
    private final String[] residues;
    private final String database;
    private final int top;

    public Search(List<Fasta.Sequence> queries, String database, int top) {
        if (queries.isEmpty() || top < 1) {
            throw new IllegalArgumentException("give at least one query and top >= 1");
        }
        this.names = queries.stream().map(Fasta.Sequence::name).toArray(String[]::new);
        this.residues = queries.stream().map(Fasta.Sequence::residues).toArray(String[]::new);
        this.database = database;
        this.top = top;
    }

    /** Where {@code location} is: {@code cx:/path} in the federation, else a path of the host's own disk. */
    static Path resolve(TaskContext context, String location) {
        return location.startsWith("cx:") ? context.files().getPath(location.substring(3)) : Path.of(location);
    }

    @Override
    public void execute(TaskContext context) {
        List<String> parts = new ArrayList<>();
        try (Stream<Path> list = Files.list(resolve(context, database))) {
            list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".fa")).sorted().forEach(parts::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the database " + database + ": " + e.getMessage(), e);
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("the database " + database + " holds no .fa files");
        }
        TaskId merge = context.storeTask(new Merge(parts.size(), top), context.continuation());
        for (int i = 0; i < parts.size(); i++) {
            context.storeTask(new ScorePart(names, residues, database + "/" + parts.get(i), top),
                    Continuation.to(merge, i));
        }
    }

    /** Scores every query against the sequences of one database file. */
    public static final class ScorePart extends Task {
        private final String[] names;
        private final String[] residues;
        private final String file;
        private final int top;

        ScorePart(String[] names, String[] residues, String file, int top) {
            this.names = names;
            this.residues = residues;
            this.file = file;
            this.top = top;
        }

        @Override
        public void execute(TaskContext context) {
            List<Fasta.Sequence> targets;
            try {
                targets = Fasta.parse(Files.readAllBytes(resolve(context, file)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
            List<byte[]> encoded = targets.stream().map(t -> SmithWaterman.encode(t.residues())).toList();
            List<Hit> hits = new ArrayList<>();
            for (int q = 0; q < names.length; q++) {
                byte[] query = SmithWaterman.encode(residues[q]);
                for (int t = 0; t < targets.size(); t++) {
                    hits.add(new Hit(names[q], targets.get(t).name(), SmithWaterman.score(query, encoded.get(t))));
                }
            }
            context.sendResult(Hit.best(hits, top));
        }
    }

    /** The best hits of each query over all the parts. */
    public static final class Merge extends Task {
        private final int top;

        Merge(int parts, int top) {
            super(parts);
            this.top = top;
        }

        @Override
        public void execute(TaskContext context) {
            List<Hit> all = new ArrayList<>();
            for (int i = 0; i < arity(); i++) {
                all.addAll(List.of(this.<Hit[]>input(i)));
            }
            context.sendResult(Hit.best(all, top));
        }

        @Override
        public long priority() {
            return Long.MAX_VALUE;
        }
    }
}
