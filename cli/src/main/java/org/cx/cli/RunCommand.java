package org.cx.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx run}: runs an example computation as a consumer. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Runs an example computation as a consumer.",
        subcommands = RunCommand.RunFib.class)
final class RunCommand extends Group {

    @Command(name = "fib", mixinStandardHelpOptions = true,
            description = "Computes F(n) on a running task server; prints 'F(N) = value'.")
    static final class RunFib extends Printing implements Callable<Integer> {

        @Option(names = "--server", paramLabel = "HOST:PORT", description = "The task server (the network's root).")
        String server;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find the network at this lookup service (see 'cx lookup')." + Lookups.MULTICAST_HELP
                        + Lookups.FALLBACK_HELP)
        String lookup;

        @Option(names = "--n", required = true, description = "Which Fibonacci number (0..60).")
        int n;

        @Mixin
        LoadOptions load;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            if (n < 0 || n > 60) {
                throw new IllegalArgumentException("--n must be in 0..60, got " + n);
            }
            Tls tls = security.tls(CredentialRole.USER, false);
            try (Consumer consumer = Consumer.connect(Lookups.serverOrLookup(server, lookup, false, tls), tls)) {
                long start = System.nanoTime();
                Consumer.Pending<Long> c = consumer.submit(new Fib(n, load.toLoad()));
                out().printf("submitted computation %x: F(%d), %d tasks%n", c.id(), n, Fib.taskCount(n));
                long value;
                try {
                    value = c.result().get();
                } catch (ExecutionException e) {
                    throw (e.getCause() instanceof RuntimeException re) ? re : e;
                }
                Consumer.Summary s = c.summary();
                out().printf("F(%d) = %d%n", n, value);
                out().printf("%d tasks, %d executions, %.3f s%n", s.tasks(), s.executions(),
                        (System.nanoTime() - start) / 1e9);
                return value == Fib.value(n) ? 0 : 1;
            }
        }
    }
}
