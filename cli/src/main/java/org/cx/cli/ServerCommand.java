package org.cx.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Callable;
import org.cx.accounting.CreditWatch;
import org.cx.accounting.UsageSender;
import org.cx.discovery.Discovery;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.security.Tls;
import org.cx.server.NetworkConfig;
import org.cx.security.CredentialRole;
import org.cx.server.ConnectionGuards;
import org.cx.server.ServerConfig;
import org.cx.server.UserQuotas;
import org.cx.server.TaskServerNode;
import org.cx.wire.Listening;
import org.cx.wire.WireClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx server}: a task server, founding a network or joining one. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Runs a task server until it is killed.",
            "Without --join it founds a production network (a network of one until others join); with --join",
            "it becomes the new right-most leaf of the network that HOST:PORT belongs to. Consumers submit to",
            "the primary root; producers may attach to any server."})
final class ServerCommand extends Printing implements Callable<Integer> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ServerCommand.class);

    @Option(names = "--port", defaultValue = "7070", description = "TCP port (0 = any free one). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "Address to bind; use 0.0.0.0 to accept other machines. Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(names = "--advertise", paramLabel = "HOST",
            description = {"The host name or address other servers, producers, consumers and the lookup service are "
                + "told to reach this server (and its JMX connector) at, when it differs from --host: behind NAT, "
                + "or a DNS name. Default: --host, or, with --host 0.0.0.0, this machine's first address that is "
                + "neither loopback nor link-local."})
    String advertise;

    @Option(names = "--name", defaultValue = "cx-server", description = "Name in logs and status. Default: ${DEFAULT-VALUE}.")
    String name;

    @Option(names = "--result-retention", defaultValue = "1h", paramLabel = "DURATION",
            description = "How long a result waits to be collected (e.g. 10m, 1h30m). Default: ${DEFAULT-VALUE}.")
    Duration retention;

    @Option(names = "--max-connections", defaultValue = "10000", paramLabel = "N",
            description = "Connections held at once; more are refused with the reason. Default: ${DEFAULT-VALUE}.")
    int maxConnections;

    @Option(names = "--max-connections-per-address", defaultValue = "2000", paramLabel = "N",
            description = "Connections from one address at once. Default: ${DEFAULT-VALUE}.")
    int maxConnectionsPerAddress;

    @Option(names = "--max-computations-per-user", defaultValue = "1000", paramLabel = "N",
            description = "Running computations one user may submit here; more are refused with the reason. "
                    + "Default: ${DEFAULT-VALUE}.")
    int maxComputations;

    @Option(names = "--max-tasks-per-user", defaultValue = "20000000", paramLabel = "N",
            description = "Tasks of one user's computations stored here at once; a computation that stores more "
                    + "fails with the reason. Default: ${DEFAULT-VALUE}.")
    long maxTasks;

    @Option(names = "--max-data-per-user", defaultValue = "2048", paramLabel = "MIB",
            description = "MiB of one user's stored tasks and their inputs held here at once; a computation that "
                    + "stores more fails with the reason. Default: ${DEFAULT-VALUE}.")
    int maxDataMiB;

    @Option(names = "--abandoned-after", defaultValue = "1h", paramLabel = "DURATION",
            description = "A running computation whose consumer has been gone this long (and did not collect it "
                    + "again) fails and its tasks are dropped. Default: ${DEFAULT-VALUE}.")
    Duration abandonedAfter;

    @Option(names = "--task-time-limit", defaultValue = "1h", paramLabel = "DURATION",
            description = "How long one task may run, from its first start, before its computation fails with the "
                    + "reason (a task that loops); at most 3 producers run copies of one task at once. "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration taskTimeLimit;

    @Option(names = "--computation-time-limit", defaultValue = "7d", paramLabel = "DURATION",
            description = "How much task time (its tasks' execution times, summed) one computation may use before "
                    + "it fails with the reason. Default: ${DEFAULT-VALUE}.")
    Duration computationTimeLimit;

    @Option(names = "--user-weight", paramLabel = "USER=WEIGHT", mapFallbackValue = "1",
            description = "A user's share of the producers relative to other users' while both have work (repeat "
                    + "for several users; a user not named has weight 1). E.g. --user-weight alice=3 gives alice "
                    + "three times bob's producers.")
    Map<String, Integer> userWeights = new java.util.LinkedHashMap<>();

    @Option(names = "--allow-server-tasks",
            description = "Run tasks that ask for it (executeOnServer) inside this server. Off by default: the "
                    + "server then runs no application code, and such a task fails its computation saying why.")
    boolean serverTasks;

    @Option(names = "--join", paramLabel = "HOST:PORT|lookup",
            description = {"Join the network of the server at HOST:PORT (any member; it forwards to the root).",
                "'lookup' joins the network registered at --lookup, or founds one if none is registered there: "
                    + "for servers started one after another, as a Kubernetes StatefulSet's are."})
    String join;

    @Option(names = "--branching", defaultValue = "2", paramLabel = "B",
            description = "Branching factor of the fat tree, for a founding server. Default: ${DEFAULT-VALUE}.")
    int branching;

    @Option(names = "--fail-timeout", defaultValue = "1s", paramLabel = "DURATION",
            description = "Silence after which a server is declared failed (a broken connection counts at "
                    + "once). Default: ${DEFAULT-VALUE}.")
    Duration failTimeout;

    @Option(names = "--commit-log", paramLabel = "FILE",
            description = "Append the id of every task whose completion is committed (applied here and on "
                    + "every mirror) to FILE: an audit trail. FILE.trail gets every task stored here (and how), "
                    + "and every task sent or received in a transfer.")
    Path commitLog;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
            description = "Register with the lookup service at HOST:PORT (see 'cx lookup'), so that producers "
                    + "and consumers started with --lookup find this server." + Lookups.MULTICAST_HELP)
    String lookup;

    @Option(names = "--accounting", paramLabel = "HOST:PORT|lookup",
            description = {"Send what producers' executions use (CPU and wall time, bytes, messages, offered "
                + "capacity) to the accounting service at HOST:PORT, or to the one registered at --lookup "
                + "(--accounting lookup). Usage is kept until the service acknowledges it, and recorded once. "
                + "Default: no accounting."})
    String accounting;

    @Option(names = "--favour-credit",
            description = {"With --accounting: favour the computations of users in credit (whose producers gave "
                + "more than their computations used, as priced): their weight in the fair share counts twice. "
                + "Balances are read every minute."})
    boolean favourCredit;

    @Mixin
    JmxOptions jmxOptions;

    @Mixin
    WebOptions webOptions;

    @Mixin
    SecurityOptions security;

    @Option(names = "--lease", defaultValue = "10s", paramLabel = "DURATION",
            description = "Lease of the registration: a dead server leaves the lookup service within it. "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration lease;

    @Override
    @SuppressWarnings("try") // the announcer only needs closing
    public Integer call() throws Exception {
        if (join != null && !join.equals("lookup")) {
            WireClient.parseAddress(join); // says what is wrong with it before anything starts
        }
        if ("lookup".equals(join) && lookup == null) {
            throw new IllegalArgumentException("--join lookup needs --lookup HOST:PORT: the lookup service names the "
                    + "network to join");
        }
        if (favourCredit && accounting == null) {
            throw new IllegalArgumentException("--favour-credit needs --accounting: the balances are the accounting "
                    + "service's");
        }
        Tls tls = security.tls(CredentialRole.SERVER, true);
        RiverDiscovery discovery = lookup == null ? null
                : RiverDiscovery.connect(lookup, lease, Duration.ofSeconds(10));
        if ("lookup".equals(join)) {
            String self = Listening.advertised(host, advertise) + ":" + port;
            join = Networks.members(discovery, tls).stream().filter(a -> !a.equals(self)).findFirst().orElse(null);
        }
        NetworkConfig network = NetworkConfig.defaults().withJoin(join).withBranching(branching)
                .withFailTimeout(failTimeout)
                .withElsewhere(discovery != null && join != null ? new Members(discovery, tls)::known : List::of);
        String jmx = jmxOptions.start(host, Listening.advertised(host, advertise), tls);
        ServerConfig config = ServerConfig.defaults(tls).withHost(host).withAdvertise(advertise).withPort(port)
                .withName(name)
                .withResultRetention(retention).withNetwork(network).withCommitLog(commitLog).withJmx(jmx)
                .withGuards(ConnectionGuards.defaults().withMaxConnections(maxConnections, maxConnectionsPerAddress))
                .withQuotas(new UserQuotas(maxComputations, maxTasks, (long) maxDataMiB << 20, abandonedAfter,
                        taskTimeLimit, computationTimeLimit, userWeights))
                .withServerTasks(serverTasks);
        try (RiverDiscovery registrar = discovery;
             TaskServerNode node = TaskServerNode.start(config);
             WebEndpoint web = webOptions.start(host);
             StatusReader dashboard = web == null ? null : new StatusReader(tls, jmx);
             Announcer announcer = discovery == null ? null : Announcer.start(discovery, node);
             UsageSender usage = accounting == null ? null : meter(node, tls);
             CreditWatch credit = favourCredit ? new CreditWatch(accountingAddress(), tls, name,
                     Duration.ofMinutes(1), node::favour) : null) {
            out().println("task server " + name + (join == null ? " (founding a network)"
                    : " (joining the network of " + join + ")") + " listening on " + host + ":" + node.port()
                    + (Listening.wildcard(host) || advertise != null ? " (others reach it at "
                            + node.advertisedAddress() + ")" : "")
                    + (lookup == null ? "" : "; registered with the lookup service at " + discovery.lookupAddress()));
            if (!jmx.isEmpty()) {
                out().println("JMX: " + jmx);
            }
            if (web != null) {
                web.dashboard(() -> dashboard.view(node).json());
                String at = Listening.advertised(webOptions.host(host), advertise);
                out().println("dashboard: " + web.base(at) + " metrics: " + web.url(at));
            }
            if (usage != null) {
                out().println("usage goes to the accounting service" + (accounting.equals("lookup")
                        ? " registered at " + lookup : " at " + accounting));
            }
            out().flush();
            String reason = node.evicted().get();
            err().println("task server " + name + " stops: " + reason);
            err().println("Its tasks are safe on the server that took over. Start it again with --join to "
                    + "add it as a new server.");
            return 3;
        }
    }

    /**
     * The members registered at the lookup service, for a joining server whose {@code --join} target does not answer:
     * read again every two seconds (River's lookups block; the server reads them on its event loop).
     */
    private static final class Members {
        private final Discovery discovery;
        private final Tls tls;
        private volatile List<String> known = List.of();
        private volatile long readAt;

        Members(Discovery discovery, Tls tls) {
            this.discovery = discovery;
            this.tls = tls;
            read();
            readAt = System.nanoTime();
        }

        private void read() {
            try {
                known = Networks.members(discovery, tls);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot ask the lookup service for the network's members: {}", e.toString());
            }
        }

        /** What the lookup service named last; asks it again, aside, if that was over two seconds ago. */
        List<String> known() {
            long now = System.nanoTime();
            if (now - readAt > TimeUnit.SECONDS.toNanos(2)) {
                readAt = now;
                Thread.ofVirtual().start(this::read);
            }
            return known;
        }
    }

    /** Meters the server's usage for the accounting service, found again after every failure to reach it. */
    private UsageSender meter(TaskServerNode node, Tls tls) {
        UsageSender sender = new UsageSender(name, accountingAddress(), tls, Duration.ofSeconds(1));
        node.meterUsage(sender::send);
        return sender;
    }

    /** Where the accounting service is: --accounting, or the one registered at --lookup. */
    private java.util.function.Supplier<String> accountingAddress() {
        if (accounting == null) {
            throw new IllegalArgumentException("--favour-credit needs --accounting");
        }
        if (accounting.equals("lookup") && lookup == null) {
            throw new IllegalArgumentException("--accounting lookup needs --lookup");
        }
        return () -> {
            try {
                return AccountingCommand.address(accounting.equals("lookup") ? null : accounting,
                        accounting.equals("lookup") ? lookup : null);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        };
    }
}
