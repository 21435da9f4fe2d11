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
            description = "Address to bind; 0.0.0.0 for every interface. Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(names = "--advertise", paramLabel = "HOST",
            description = "The host clients are told to call it at, when it differs from --host. Default: --host, "
                    + "or, with --host 0.0.0.0, this machine's first address that is neither loopback nor "
                    + "link-local.")
    String advertise;

    @Option(names = "--call-port", defaultValue = "0", paramLabel = "PORT",
            description = "TCP port of its remote calls (after discovery on --port, clients call it there): fix it "
                    + "for a firewall or a Kubernetes service. Default: a free one.")
    int callPort;

    @Override
    public Integer call() throws Exception {
        // River logs a failure to bind as a stack trace before it says anything: look first.
        org.cx.wire.Listening.check(host, port, "another lookup service? choose another --port");
        org.cx.wire.Listening.check(host, callPort, "choose another --call-port");
        try (LookupService lookup = LookupService.start(host, org.cx.wire.Listening.advertised(host, advertise), port,
                callPort, multicast)) {
            out().println("lookup service listening on " + lookup.address()
                    + (multicast ? "; answering multicast discovery for group '" + LookupService.GROUP + "'" : ""));
            out().flush();
            new CountDownLatch(1).await();
        }
        return 0;
    }
}
