package org.cx.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.cx.discovery.LookupService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx lookup}: an Apache River lookup service. */
@Command(name = "lookup", mixinStandardHelpOptions = true,
        description = {"Runs an Apache River (Jini) lookup service until killed.",
            "Servers started with --lookup HOST:PORT register there (with leases), and producers and consumers",
            "started with --lookup find them there. Unicast only, unless --multicast is given."})
final class LookupCommand extends Printing implements Callable<Integer> {

    @Option(names = "--multicast",
            description = "Also announce this lookup service and answer multicast requests (group 'cx', UDP "
                    + "port 4160), so that '--lookup multicast' finds it without an address. Off by default: "
                    + "many networks carry no multicast, and unicast always works.")
    boolean multicast;

    @Option(names = "--port", defaultValue = "4160", description = "TCP port (the Jini default). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "Address to bind and to announce. Default: ${DEFAULT-VALUE}.")
    String host;

    @Override
    public Integer call() throws Exception {
        // River logs a failure to bind as a stack trace before it says anything: look first.
        org.cx.wire.Listening.check(host, port, "another lookup service? choose another --port");
        try (LookupService lookup = LookupService.start(host, port, multicast)) {
            out().println("lookup service listening on " + lookup.address()
                    + (multicast ? "; answering multicast discovery for group '" + LookupService.GROUP + "'" : ""));
            out().flush();
            new CountDownLatch(1).await();
        }
        return 0;
    }
}
