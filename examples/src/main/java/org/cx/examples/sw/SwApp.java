package org.cx.examples.sw;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cx.api.Application;
import org.cx.api.Computation;
import org.cx.api.TaskServer;

/**
 * The Smith-Waterman search as an application jar: {@code cx submit sw-app.jar QUERIES.fa DATABASE [TOP]} scores
 * the queries (a local FASTA file) against the database directory {@code DATABASE} ({@code cx:/path} in the federated
 * file service, which the producers must reach, or a directory on every producer's disk) and prints the best
 * {@code TOP} hits (default 5) of each query.
 */
public final class SwApp implements Application {

    @Override
    public int run(TaskServer server, String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: cx submit sw-app.jar QUERIES.fa DATABASE [TOP]   (DATABASE: cx:/dir in the "
                    + "federation, or a directory on the producers' disks)");
            return 2;
        }
        List<Fasta.Sequence> queries = Fasta.parse(Files.readAllBytes(Path.of(args[0])));
        int top = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Computation<Hit[]> run = server.submit(new Search(queries, args[1], top));
        for (Hit h : run.result().get()) {
            System.out.println(h.query() + "\t" + h.target() + "\t" + h.score());
        }
        return 0;
    }
}
