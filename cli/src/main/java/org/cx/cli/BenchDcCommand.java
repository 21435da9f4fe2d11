package org.cx.cli;

import java.util.concurrent.Callable;
import org.cx.harness.DataBench;
import org.cx.harness.DcBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx bench dc}: divide and conquer in four methods against the hand-written Fibonacci. */
@Command(name = "dc", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs F(--n) written by hand (org.cx.examples.fib.Fib) and in four methods",
            "(org.cx.examples.dc.FibonacciDc with DivideAndConquer) in interleaved rounds on one server and",
            "--producers one-worker producers in this process, and prints the median of each and their ratio.",
            "Example, the paper's times / 400: --n 18 --load sleep --decompose-ms 0.1 --leaf-ms 4 --compose-ms 0.1"})
final class BenchDcCommand extends Printing implements Callable<Integer> {
    @Option(names = "--n", defaultValue = "18", description = "Which Fibonacci number. Default: ${DEFAULT-VALUE}.")
    int n;

    @Option(names = "--producers", defaultValue = "16", description = "Producers. Default: ${DEFAULT-VALUE}.")
    int producers;

    @Option(names = "--rounds", defaultValue = "7", description = "Rounds of each. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Mixin
    LoadOptions load;

    @Override
    public Integer call() throws Exception {
        if (n < 2 || producers < 1 || rounds < 1) {
            throw new IllegalArgumentException("--n must be at least 2, --producers and --rounds at least 1");
        }
        DcBench.Sample s = DcBench.run(n, load.toLoad(), producers, rounds, System.err);
        out().printf("F(%d), %d producers: hand-written %.1f ms, four methods %.1f ms (medians of %d interleaved "
                + "rounds): %.3f x%n", n, producers, DataBench.median(s.handMs()), DataBench.median(s.templateMs()),
                rounds, s.ratio());
        out().flush();
        return 0;
    }
}
