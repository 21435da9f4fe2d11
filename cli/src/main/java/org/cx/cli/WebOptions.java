package org.cx.cli;

import java.io.IOException;
import picocli.CommandLine.Option;

/** The web options of the commands that run a server (dashboard and metrics) or a producer (metrics). */
final class WebOptions {

    @Option(names = "--http-port", paramLabel = "PORT",
            description = "Serve Prometheus metrics at http://HOST:PORT/metrics (0 picks a free port): this "
                    + "process's CX figures (tasks, producers, computations …) and its JVM's; on a server, also the "
                    + "dashboard of the whole network at http://HOST:PORT/. Default: none.")
    Integer port;

    @Option(names = "--http-host", paramLabel = "HOST",
            description = "Address the web endpoint binds. Default: the server's --host; 127.0.0.1 for a "
                    + "producer.")
    String host;

    /** Starts the endpoint (on {@code --http-host}, else {@code defaultHost}) if asked for; null if not. */
    WebEndpoint start(String defaultHost) throws IOException {
        return port == null ? null : WebEndpoint.start(host != null ? host : defaultHost, port);
    }

    /** The host the endpoint binds, for its URL. */
    String host(String defaultHost) {
        return host != null ? host : defaultHost;
    }
}
