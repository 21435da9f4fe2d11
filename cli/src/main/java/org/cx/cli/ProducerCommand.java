package org.cx.cli;

import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import org.cx.producer.Producer;
import org.cx.security.CredentialRole;
import org.cx.producer.ProducerConfig;
import org.cx.security.Tls;
import org.cx.wire.WireClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx producer}: a producer attached to a task server. */
@Command(name = "producer", mixinStandardHelpOptions = true,
        description = {"Runs a producer attached to a task server, until no server of its network is left.",
            "If its server fails, it moves to a member of that server's mirror group (named when it attached)."})
final class ProducerCommand extends Printing implements Callable<Integer> {

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "The task server to attach to.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
            description = "Find a task server (the one with the fewest producers) at this lookup service "
                    + "instead." + Lookups.MULTICAST_HELP)
    String lookup;

    @Option(names = "--workers", defaultValue = "1", paramLabel = "W",
            description = "Worker threads. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--no-prefetch", description = "Ask for a task only when a worker is idle (experiments).")
    boolean noPrefetch;

    @Option(names = "--name", defaultValue = "producer", description = "Name in the server's logs. Default: ${DEFAULT-VALUE}.")
    String name;

    @Mixin
    JmxOptions jmxOptions;

    @Mixin
    SecurityOptions security;

    @Option(names = "--speed", defaultValue = "1.0", paramLabel = "S",
            description = "This host's speed relative to a reference host, as tasks see it "
                    + "(TaskContext.hostSpeed): synthetic benchmark loads take 1/S of their time, to emulate a "
                    + "mix of processor types. Default: ${DEFAULT-VALUE}.")
    double speed;

    @Override
    public Integer call() throws Exception {
        if (!(speed > 0) || speed > ProducerConfig.MAX_SPEED) {
            throw new IllegalArgumentException("--speed must be in (0, " + ProducerConfig.MAX_SPEED + "], got "
                    + speed);
        }
        Tls tls = security.tls(CredentialRole.PRODUCER, false);
        server = Lookups.serverOrLookup(server, lookup, true, tls);
        InetSocketAddress address = WireClient.parseAddress(server);
        String jmx = jmxOptions.start("127.0.0.1", tls);
        ProducerConfig config = ProducerConfig.of(address, workers, tls).withName(name).withPrefetch(!noPrefetch)
                .withJmx(jmx).withSpeed(speed);
        try (Producer p = Producer.start(config)) {
            out().println("producer '" + name + "' attached to " + server + " with " + workers + " worker"
                    + (workers == 1 ? "" : "s"));
            out().flush();
            while (p.tasksRun() == 0 && !p.disconnected().isDone()) {
                Thread.sleep(5);
            }
            if (p.tasksRun() > 0) {
                long sinceStart = System.currentTimeMillis()
                        - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
                out().println("producer '" + name + "' ran its first task " + sinceStart + " ms after its JVM "
                        + "started");
                out().flush();
            }
            p.disconnected().join();
            out().println("producer '" + name + "' stops: its server is gone and no member of its mirror group "
                    + "took it (" + p.tasksRun() + " tasks run)");
        }
        return 1;
    }
}
