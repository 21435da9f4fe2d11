package org.cx.cli;

import ch.qos.logback.classic.Level;
import java.util.concurrent.Callable;
import org.cx.sim.Scenario;
import org.cx.sim.SimRunner;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx sim}: the deterministic simulation of a whole network under faults. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = {"Runs the deterministic simulation of a whole network under faults, seed after seed.",
            "Each seed runs task servers (their real code), producers and consumers in one thread over in-memory",
            "connections on a virtual clock: the network forms, F(n) and a DAG of variable fan-in run, and faults",
            "strike (a server crashes, freezes or is cut off from some neighbours, connections break, producers",
            "crash, leave and join). Then it checks: each computation's result is right and no task was lost, no",
            "task's completion was committed twice, no server applied a completion after its tasks were taken",
            "over, and the network again tolerates a failure. The same seed always runs the same way: a failing",
            "seed prints the one command that replays it step by step.",
            "",
            "Examples:",
            "  cx sim --seeds 10000          10,000 seeds from a random first one (printed)",
            "  cx sim --seed 2515 --trace    replay one seed, printing every step"})
final class SimCommand extends Printing implements Callable<Integer> {
    @Option(names = "--seeds", defaultValue = "1000", description = "How many seeds to run. Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(names = "--first-seed", description = "The first seed; the others follow it. Default: a random one.")
    Long first;

    @Option(names = "--seed", description = "Run this one seed only (a replay).")
    Long seed;

    @Option(names = "--trace", description = "With --seed: print every step of the run.")
    boolean trace;

    @Option(names = "--audit-trail", paramLabel = "DIR",
            description = "With --seed: each server writes its commit log and audit trail (every task stored, sent, "
                    + "received, every value routed) to DIR/NAME.log and DIR/NAME.log.trail.")
    java.nio.file.Path trails;

    @Option(names = "--server-logs", description = "Let the servers log (at cx.log.level, WARN by default); "
            + "silent otherwise.")
    boolean serverLogs;

    @Option(names = "--threads", description = "Seeds run at once. Default: one per core.")
    Integer threads;

    @Option(names = "--servers", defaultValue = "7", description = "Task servers. Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(names = "--producers", defaultValue = "6", description = "Producers at the start. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--workers", defaultValue = "2", description = "Workers per producer. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--fib", defaultValue = "12", paramLabel = "N", description = "Computes F(N). Default: ${DEFAULT-VALUE}.")
    int fib;

    @Option(names = "--spread-depth", defaultValue = "4",
            description = "Depth of the DAG of variable fan-in. Default: ${DEFAULT-VALUE}.")
    int spreadDepth;

    @Option(names = "--faults", defaultValue = "3", paramLabel = "F",
            description = "At most this many faults per seed (0 to F, drawn). Default: ${DEFAULT-VALUE}.")
    int faults;

    @Option(names = "--wide-cuts", description = "Let the primary root be cut from up to three servers at once: that "
            + "many failures at once, beyond what the network survives (expect lost state, reported as such).")
    boolean wideCuts;

    @Option(names = "--freeze-mid-commit", description = "Freeze a server not at a random moment but as it sends its "
            + "mirrors a batch that applies a completion, before they acknowledge it.")
    boolean freezeMidCommit;

    @Option(names = "--no-claims", description = "No producer claims: each runs only what its server assigns it "
            + "(otherwise two in three claim as cx producer does, drawn from the seed).")
    boolean noClaims;

    @Option(names = "--no-stragglers", description = "Every task run takes its producer's usual time and no producer "
            + "freezes (otherwise one run in 50 takes 30 times as long, so that servers hand out eager copies of it, "
            + "and a producer fault may be a freeze of 0.1 to 3 s).")
    boolean noStragglers;

    @Option(names = "--short-cuts", description = "A cut lasts at most 2.5 s (otherwise up to 5 s: long enough for a "
            + "server cut off from the primary root to stop by itself after two failure timeouts).")
    boolean shortCuts;

    @Option(names = "--inline-values", description = "Every value travels inline (otherwise the spread's values over "
            + "200 bytes travel by reference, in chunks of 64 bytes sent ahead of the message that refers to them, as "
            + "values over 1 MiB do in cx).")
    boolean inlineValues;

    @Option(names = "--no-cancel", description = "Submit no third computation to cancel (otherwise F(n + 2) is "
            + "submitted too and cancelled 20-400 ms after it is accepted; none of its tasks may start 1 s after).")
    boolean noCancel;

    @Option(names = "--consumer-at-root", description = "One consumer, on the primary root (otherwise it attaches to "
            + "a server drawn from the seed, so that the origin of its computations may fail while the root lives, "
            + "and a second consumer on another submits an F(n) of its own).")
    boolean consumerAtRoot;

    @Override
    public Integer call() throws Exception {
        if (servers < 1 || producers < 1 || workers < 1 || fib < 0 || spreadDepth < 0 || faults < 0 || seeds < 1) {
            throw new IllegalArgumentException("--servers, --producers, --workers and --seeds must be at least 1, "
                    + "--fib, --spread-depth and --faults at least 0");
        }
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.cx")).setLevel(serverLogs ? null : Level.OFF);
        Scenario.Shape shape = new Scenario.Shape(servers, producers, workers, fib, spreadDepth, faults,
                wideCuts, freezeMidCommit, !noClaims, !noStragglers, !shortCuts, !inlineValues, !noCancel,
                !consumerAtRoot);
        if (seed == null && (trace || trails != null)) {
            throw new IllegalArgumentException("--trace and --audit-trail replay one seed: give it with --seed");
        }
        if (seed != null) {
            if (trails != null) {
                java.nio.file.Files.createDirectories(trails);
            }
            Scenario.Result r = SimRunner.runOne(seed, shape, trace ? System.out : null, trails);
            if (r.ok()) {
                out().printf("seed %d held every invariant (%d events, %.1f s of virtual time)%n", seed,
                        r.eventsRun(), r.virtualNanos() / 1e9);
            } else {
                SimRunner.describe(r, shape, new java.io.PrintStream(System.out, true));
            }
            out().flush();
            return r.ok() ? 0 : 1;
        }
        long from = first != null ? first : new java.util.SplittableRandom().nextLong(1, 1L << 40);
        int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        err().printf("seeds %d to %d on %d threads%n", from, from + seeds - 1, n);
        err().flush();
        long[] lastReport = {System.nanoTime()};
        SimRunner.Summary s = SimRunner.run(from, seeds, shape, n, p -> {
            synchronized (lastReport) {
                if (System.nanoTime() - lastReport[0] > 2_000_000_000L || p[0] == seeds) {
                    lastReport[0] = System.nanoTime();
                    err().printf("%d/%d seeds, %d failed%n", p[0], seeds, p[1]);
                    err().flush();
                }
            }
        });
        java.io.PrintStream stdout = new java.io.PrintStream(System.out, true);
        s.failures().forEach(r -> SimRunner.describe(r, shape, stdout));
        out().printf("%d seeds, %d failed, in %.1f s (%d events, %.0f s of virtual time); faults: %s%n", s.runs(),
                s.failures().size(), s.wallNanos() / 1e9, s.events(), s.virtualNanos() / 1e9, s.faults());
        out().flush();
        return s.ok() ? 0 : 1;
    }
}
