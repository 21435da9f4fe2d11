package org.cx.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs many seeds of a {@link Scenario}, each on its own in one thread, several at once; reports progress and,
 * for every failing seed, its violations and the one command that replays it.
 */
public final class SimRunner {

    /**
     * What a batch of seeds found.
     *
     * @param faults the faults that struck, over every seed, by kind ({@link #kindOf})
     */
    public record Summary(int runs, List<Scenario.Result> failures, long events, long virtualNanos, long wallNanos,
                          java.util.Map<String, Integer> faults) {
        public boolean ok() {
            return failures.isEmpty();
        }
    }

    private SimRunner() {
    }

    /** The command that replays {@code seed} step by step. */
    public static String replayCommand(long seed, Scenario.Shape shape) {
        Scenario.Shape d = Scenario.Shape.defaults();
        StringBuilder b = new StringBuilder("cx sim --seed ").append(seed).append(" --trace");
        if (!shape.equals(d)) {
            b.append(" --servers ").append(shape.servers()).append(" --producers ").append(shape.producers())
                    .append(" --workers ").append(shape.workers()).append(" --fib ").append(shape.fib())
                    .append(" --spread-depth ").append(shape.spreadDepth()).append(" --faults ")
                    .append(shape.maxFaults());
            if (shape.wideCuts()) {
                b.append(" --wide-cuts");
            }
            if (shape.freezeMidCommit()) {
                b.append(" --freeze-mid-commit");
            }
            if (!shape.claims()) {
                b.append(" --no-claims");
            }
            if (!shape.stragglers()) {
                b.append(" --no-stragglers");
            }
            if (!shape.longCuts()) {
                b.append(" --short-cuts");
            }
            if (!shape.valuesByReference()) {
                b.append(" --inline-values");
            }
            if (!shape.cancel()) {
                b.append(" --no-cancel");
            }
            if (!shape.consumerAnywhere()) {
                b.append(" --consumer-at-root");
            }
        }
        return b.toString();
    }

    /**
     * Runs seeds {@code first}, {@code first + 1}, … ({@code count} of them) on {@code threads} threads.
     *
     * @param progress told after each run: runs done so far, failures so far
     */
    public static Summary run(long first, int count, Scenario.Shape shape, int threads,
                              Consumer<int[]> progress) throws InterruptedException {
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "cx-sim");
            t.setDaemon(true);
            return t;
        });
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        List<Future<Scenario.Result>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long seed = first + i;
            futures.add(pool.submit(() -> {
                Scenario.Result r = runOne(seed, shape, null);
                int f = r.ok() ? failed.get() : failed.incrementAndGet();
                progress.accept(new int[] {done.incrementAndGet(), f});
                return r;
            }));
        }
        List<Scenario.Result> failures = Collections.synchronizedList(new ArrayList<>());
        long events = 0;
        long virtual = 0;
        java.util.Map<String, Integer> faults = new java.util.TreeMap<>();
        try {
            for (Future<Scenario.Result> f : futures) {
                Scenario.Result r = f.get();
                events += r.eventsRun();
                virtual += r.virtualNanos();
                for (String fault : r.faults()) {
                    faults.merge(kindOf(fault), 1, Integer::sum);
                }
                if (!r.ok()) {
                    failures.add(r);
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return new Summary(count, List.copyOf(failures), events, virtual, System.nanoTime() - started, faults);
    }

    /**
     * A fault's kind: "12.5 ms: freeze s4 for 300 ms as it mirrors a completion" → "freeze mid-commit",
     * "… crash s2" → "crash server", "… freeze p3 …" → "freeze producer", "… p3 leaves" → "leaves",
     * "… cut s1 from …" → "cut".
     */
    static String kindOf(String fault) {
        String what = fault.substring(fault.indexOf(": ") + 2);
        if (what.contains(" as it mirrors a completion")) {
            return "freeze mid-commit";
        }
        String[] words = what.split(" ");
        if ((words[0].equals("crash") || words[0].equals("freeze")) && words.length > 1) {
            return words[0] + (words[1].startsWith("s") ? " server" : " producer");
        }
        return words.length > 1 && words[0].matches("[pc][0-9]+") ? words[1] : words[0];
    }

    /** One seed; a run that throws counts as a failure of that seed, with the exception as its violation. */
    public static Scenario.Result runOne(long seed, Scenario.Shape shape, PrintStream trace) {
        return runOne(seed, shape, trace, null);
    }

    /** One seed, each server keeping its commit log and audit trail in {@code trails} (if not null). */
    public static Scenario.Result runOne(long seed, Scenario.Shape shape, PrintStream trace,
                                         java.nio.file.Path trails) {
        try {
            return new Scenario(seed, shape, trace, trails).run();
        } catch (RuntimeException | AssertionError e) {
            java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            return new Scenario.Result(seed, List.of("the run threw " + w), List.of(), 0, 0, 0);
        }
    }

    /** Prints a failing seed: its faults, its violations, and how to replay it. */
    public static void describe(Scenario.Result r, Scenario.Shape shape, PrintStream out) {
        out.println("seed " + r.seed() + " FAILED");
        for (String f : r.faults()) {
            out.println("  fault at " + f);
        }
        for (String v : r.violations()) {
            out.println("  violated: " + v);
        }
        out.println("  replay: " + replayCommand(r.seed(), shape));
    }

    public static void main(String[] args) throws InterruptedException {
        long first = args.length > 0 ? Long.parseLong(args[0]) : 1;
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Scenario.Shape shape = Scenario.Shape.defaults();
        if (count == 1) {
            Scenario.Result r = runOne(first, shape, System.out);
            System.out.println(r);
            return;
        }
        Summary s = run(first, count, shape, 2, p -> { });
        s.failures().forEach(r -> describe(r, shape, System.out));
        System.out.printf("%d runs, %d failed, %.1f s, %d events%n", s.runs(), s.failures().size(),
                s.wallNanos() / 1e9, s.events());
    }
}
