package org.cx.cli;

import java.io.IOException;
import java.net.InetAddress;
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
        return start(host, host, tls);
    }

    /**
     * Starts the connector bound to {@code host} (as the process's server is), telling clients to call it at
     * {@code advertised}. Without TLS there is no login, so the connector then stays on loopback whatever the host.
     */
    String start(String host, String advertised, Tls tls) throws IOException {
        if (off) {
            return "";
        }
        if (tls == null && !InetAddress.getByName(host).isLoopbackAddress()) {
            return JmxAgent.start("127.0.0.1", "127.0.0.1", port, null);
        }
        return JmxAgent.start(host, advertised, port, tls);
    }
}
