package org.cx.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.cx.harness.RecoveryBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench recovery}: recovery from server failures (SIGKILL). */
@Command(name = "recovery", mixinStandardHelpOptions = true,
        description = {"Measures recovery from server failures (SIGKILL).",
            "Starts S server processes and producers spread over them, keeps computations running, and kills",
            "servers with SIGKILL one after another. For each failure: the time until every producer of the",
            "killed server is served again, and until the network tolerates another failure."})
final class BenchRecoveryCommand extends Printing implements Callable<Integer> {
    @Option(names = "--servers", defaultValue = "7", description = "ServerCommand processes. Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(names = "--producers-per-server", defaultValue = "4", paramLabel = "P",
            description = "One-worker producers attached to each server. Default: ${DEFAULT-VALUE}.")
    int perServer;

    @Option(names = "--kills", description = "Failures, one after another. Default: S - 2 (5 of the default 7 "
            + "servers), so that the last repair still leaves a network that can tolerate a failure.")
    Integer kills;

    @Option(names = "--seed", description = "Seed for choosing the victims (printed when not given).")
    Long seed;

    @Override
    public Integer call() throws Exception {
        long s = seed != null ? seed : System.nanoTime();
        err().println("seed " + s);
        err().flush();
        int failures = kills != null ? kills : Math.max(1, servers - 2);
        List<RecoveryBench.Sample> samples = RecoveryBench.run(Cx.class.getName(), servers, perServer, failures, s, System.err);
        double served = RecoveryBench.median(samples.stream().map(RecoveryBench.Sample::servedMs).toList());
        double tolerant = RecoveryBench.median(
                samples.stream().map(RecoveryBench.Sample::tolerantMs).toList());
        out().printf("median of %d failures: producers served again after %.0f ms; network tolerant of "
                + "another failure after %.0f ms%n", samples.size(), served, tolerant);
        out().flush();
        return 0;
    }
}
