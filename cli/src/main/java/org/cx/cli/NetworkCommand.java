package org.cx.cli;

import java.util.concurrent.Callable;
import org.cx.consumer.NetworkProbe;
import org.cx.security.CredentialRole;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx network}: looks at a production network. */
@Command(name = "network", mixinStandardHelpOptions = true, description = "Looks at a production network.",
        subcommands = NetworkCommand.Status.class)
final class NetworkCommand extends Group {

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Prints the tree of a running network.",
                "As the primary root sees it: each server's position, mirror group, tasks and producers, and",
                "whether the network tolerates another failure."})
    static final class Status extends Printing implements Callable<Integer> {
        @Option(names = "--server", required = true, paramLabel = "HOST:PORT",
                description = "Any server of the network.")
        String server;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            out().print(NetworkProbe.describe(NetworkProbe.status(server, security.tls(CredentialRole.USER, false))));
            out().flush();
            return 0;
        }
    }
}
