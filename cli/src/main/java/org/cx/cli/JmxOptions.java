package org.cx.cli;

import java.io.IOException;
import org.cx.security.Tls;
import picocli.CommandLine.Option;

/** The JMX connector options of the commands that run a server or a producer ({@code cx status} reads it). */
final class JmxOptions {

    @Option(names = "--jmx-port", defaultValue = "0", paramLabel = "PORT",
            description = "Port of this process's JMX connector (for cx status and jconsole); 0 picks a free "
                    + "one. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--no-jmx", description = "Start no JMX connector (cx status then shows less).")
    boolean off;

    /**
     * Starts the connector bound to {@code host}, logins checked against {@code tls}'s authority (none if null); its
     * service URL, or empty with {@code --no-jmx}.
     */
    String start(String host, Tls tls) throws IOException {
        return off ? "" : JmxAgent.start(host, port, tls);
    }
}
