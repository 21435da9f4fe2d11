package org.cx.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cx status}: a live view of the whole network from its MBeans ({@link StatusReader}), as a table refreshed
 * like top, or as lines of JSON.
 */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows every server, producer and computation of a running network.",
            "From their JMX MBeans, refreshing like top (Ctrl-C to stop), or once with --once. Into a pipe or a file,",
            "each snapshot follows the last (no screen codes); --json writes each as a line of JSON."})
final class StatusCommand extends Printing implements Callable<Integer> {

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "Any server of the network.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast", description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP)
    String lookup;

    @Option(names = "--once", description = "Print one snapshot and exit.")
    boolean once;

    @Option(names = "--json", description = "Print each snapshot as one line of JSON (servers, producers, "
            + "computations; a figure not given is null).")
    boolean json;

    @Option(names = "--interval", defaultValue = "2s", paramLabel = "DURATION",
            description = "Refresh period. Default: ${DEFAULT-VALUE}.")
    Duration interval;

    @Mixin
    SecurityOptions security;

    /** Reads the network's MBeans; made when the credential is known. */
    private StatusReader reader;

    @Override
    public Integer call() throws Exception {
        Tls tls = security.tls(CredentialRole.USER, false);
        String root = Lookups.serverOrLookup(server, lookup, false, tls);
        try (StatusReader status = new StatusReader(tls)) {
            reader = status;
            boolean terminal = System.console() != null && !json;
            do {
                StatusView view = view(root);
                PrintWriter out = out();
                if (!once && terminal) {
                    out.print("\033[H\033[2J"); // clear the terminal, like top
                } else if (!once && !json) {
                    out.println("--- " + java.time.LocalTime.now().withNano(0));
                }
                out.print(json ? view.json() : view.text());
                out.flush();
                if (!once) {
                    Thread.sleep(interval.toMillis());
                }
            } while (!once);
        }
        return 0;
    }

    /** One view of the network. */
    StatusView view(String root) throws IOException {
        if (reader == null) {
            reader = new StatusReader(security.tls(CredentialRole.USER, false));
        }
        return reader.view(root);
    }
}
