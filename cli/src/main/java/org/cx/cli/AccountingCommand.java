package org.cx.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.cx.accounting.AccountingClient;
import org.cx.accounting.AccountingService;
import org.cx.accounting.AccountingStore;
import org.cx.accounting.PriceTable;
import org.cx.accounting.Report;
import org.cx.accounting.UsageChart;
import org.cx.discovery.Discovery;
import org.cx.discovery.RiverDiscovery;
import org.cx.discovery.ServiceRecord;
import org.cx.fs.FsException;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.wire.Jmx;
import org.cx.wire.Listening;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx accounting}: the accounting service and the commands that read it. */
@Command(name = "accounting", mixinStandardHelpOptions = true,
        description = {"The accounting service: who consumed and who contributed what, at what price.",
            "Task servers started with --accounting (or --lookup, where the service registered) send it what every",
            "task execution used; it records each batch once, prices it by the prices in force, and keeps a balance",
            "per user (credited for what their producers ran and offered, charged for what their computations used).",
            "Example, on one machine:",
            "  cx accounting serve --prices prices.txt &",
            "  cx server --accounting 127.0.0.1:7400 & cx producer &",
            "  cx accounting balance && cx accounting report --by host --format csv"},
        subcommands = {AccountingCommand.Serve.class, AccountingCommand.Prices.class, AccountingCommand.Balance.class,
            AccountingCommand.ReportCmd.class, AccountingCommand.StatementCmd.class, AccountingCommand.Chart.class})
final class AccountingCommand extends Group {
    /** The service's port unless told otherwise. */
    static final int PORT = 7400;

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"Runs the accounting service. It keeps its records in an embedded database in --data",
                "unless --jdbc names another (PostgreSQL: jdbc:postgresql://HOST:PORT/DB); the schema is created",
                "and migrated when it starts. A batch of usage is acknowledged only once it is committed."})
    static final class Serve extends Printing implements Callable<Integer> {
        @Option(names = "--data", paramLabel = "DIR",
                description = "Where the embedded database is kept. Default: ~/.cx/accounting (or under $CX_HOME).")
        Path data;

        @Option(names = "--jdbc", paramLabel = "URL", description = "A database server to keep the records in, "
                + "instead of the embedded one.")
        String jdbc;

        @Option(names = "--db-user", paramLabel = "NAME", defaultValue = "",
                description = "The database user, with --jdbc.")
        String dbUser;

        @Option(names = "--db-password-file", paramLabel = "FILE",
                description = "A file holding the database password, with --jdbc.")
        Path dbPasswordFile;

        @Option(names = "--host", defaultValue = "127.0.0.1",
                description = "Address to bind; use 0.0.0.0 to accept other machines. Default: ${DEFAULT-VALUE}.")
        String host;

        @Option(names = "--port", defaultValue = "" + PORT,
                description = "TCP port (0 = any free one). Default: ${DEFAULT-VALUE}.")
        int port;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Register with this lookup service, so that task servers and the cx accounting "
                        + "commands given --lookup find the service." + Lookups.MULTICAST_HELP)
        String lookup;

        @Option(names = "--prices", paramLabel = "FILE",
                description = "Load this prices file at start (see cx accounting prices load), unless the "
                        + "database has these very prices in force already.")
        Path prices;

        @Option(names = "--charge-duplicates", description = "Charge consumers for every execution of a task, not "
                + "only for the one whose effects were applied (eager scheduling runs some tasks twice).")
        boolean chargeDuplicates;

        @Option(names = "--credit-accepted-only", description = "Credit producers only for executions whose effects "
                + "were applied, not for every execution they ran.")
        boolean creditAcceptedOnly;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            Tls tls = security.tls(CredentialRole.SERVER, true);
            PriceTable table = prices == null ? null : PriceTable.parse(Files.readString(prices));
            String url = jdbc != null ? jdbc : AccountingStore.embedded(data != null ? data
                    : CxHome.dir().resolve("accounting"));
            String password = dbPasswordFile == null ? "" : Files.readString(dbPasswordFile).strip();
            AccountingStore.Policy policy = new AccountingStore.Policy(chargeDuplicates, !creditAcceptedOnly);
            try (AccountingStore store = AccountingStore.open(url, dbUser, password, policy);
                 AccountingService service = new AccountingService(store, host, port, tls);
                 RiverDiscovery discovery = lookup == null ? null : RiverDiscovery.connect(lookup);
                 Discovery.Registration registration = discovery == null ? null : discovery.register(
                         ServiceRecord.of(Discovery.ACCOUNTING, "accounting", Listening.advertised(host, null) + ":"
                                 + service.port()))) {
                if (table != null && !table.source().equals(store.prices().table().source())) {
                    var v = store.loadPrices(table, "cx accounting serve", Instant.now());
                    out().println("prices from " + prices + " are version " + v.number() + ", in force from "
                            + v.inForceFrom());
                }
                var mbean = Jmx.register("org.cx:type=Accounting", service);
                out().println("accounting service listening on " + host + ":" + service.port() + ", records in "
                        + url.replaceAll("password=[^;&]*", "password=…")
                        + (registration == null ? "" : "; registered with the lookup service at " + lookup));
                out().flush();
                CountDownLatch stop = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "cx-accounting-shutdown"));
                stop.await();
                Jmx.unregister(mbean);
            }
            return 0;
        }
    }

    /** Where the accounting service is, found from --accounting, --lookup, $CX_ACCOUNTING or the default. */
    static String address(String given, String lookup) throws IOException {
        if (given != null && lookup != null) {
            throw new IllegalArgumentException("give --accounting or --lookup, not both");
        }
        if (given != null) {
            return given;
        }
        if (lookup != null) {
            return Lookups.required(lookup, Discovery.ACCOUNTING, "accounting service", "cx accounting serve").get(0);
        }
        String env = System.getenv("CX_ACCOUNTING");
        return env != null && !env.isBlank() ? env : "127.0.0.1:" + PORT;
    }

    /** A command that asks the accounting service. */
    abstract static class Client extends Printing implements Callable<Integer> {
        @Option(names = "--accounting", paramLabel = "HOST:PORT",
                description = "The accounting service. Default: $CX_ACCOUNTING, else 127.0.0.1:" + PORT + ".")
        String accounting;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find the accounting service at this lookup service." + Lookups.MULTICAST_HELP)
        String lookup;

        @Option(names = "--as", paramLabel = "NAME",
                description = "With --insecure: who you are (default: this login's name). With TLS the credential "
                        + "says who you are.")
        String as;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            Tls tls = security.tls(CredentialRole.USER, false);
            if (tls != null && as != null) {
                throw new IllegalArgumentException("--as is for --insecure: with TLS your credential names you");
            }
            try (AccountingClient client = AccountingClient.connect(address(accounting, lookup), tls,
                    as != null ? as : System.getProperty("user.name"))) {
                return run(client);
            } catch (FsException e) {
                out().flush();
                err().println("cx accounting " + spec.name() + ": " + e.getMessage());
                return 1;
            }
        }

        abstract int run(AccountingClient client) throws IOException;
    }

    /** How a balance or report is written. */
    static final class Formatted {
        @Option(names = "--format", defaultValue = "table", description = "table, csv or json. "
                + "Default: ${DEFAULT-VALUE}.")
        Report.Format format;
    }

    /** Prints {@code text} as it is, and flushes. */
    static int print(Printing command, String text) {
        command.out().print(text);
        command.out().flush();
        return 0;
    }

    /** A command over a period of time. */
    abstract static class Period extends Client {
        @Option(names = "--from", paramLabel = "TIME", description = "From this time (a date, 2026-11-01, or an "
                + "instant, 2026-11-01T08:00:00Z; UTC). Default: the beginning.")
        String from;

        @Option(names = "--to", paramLabel = "TIME", description = "Up to this time, exclusive. Default: now.")
        String to;

        Instant from() {
            return from == null ? Instant.EPOCH : time(from, "--from");
        }

        Instant to() {
            return to == null ? Instant.ofEpochMilli(Long.MAX_VALUE) : time(to, "--to");
        }

        private static Instant time(String text, String option) {
            try {
                return text.contains("T") ? Instant.parse(text) : LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC)
                        .toInstant();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(option + " " + text + " is no time: write a date (2026-11-01) or "
                        + "an instant (2026-11-01T08:00:00Z)");
            }
        }
    }

    @Command(name = "prices", mixinStandardHelpOptions = true,
            description = {"Shows the prices in force (show), or loads a prices file as a new version (load FILE;",
                "admins only). A prices file has a line per price: kind host-type hours per-cpu-hour per-gib, e.g.",
                "  consumed     *    0-24  1.00  0.01",
                "  consumed     c64  8-18  1.50  0.01",
                "  contributed  *    0-24  0.90  0",
                "  offered      *    0-24  0.10  0",
                "kind: consumed, contributed or offered; host-type: c<workers> or a pattern (*, c*); hours: a band",
                "of the day in UTC. The last matching line wins. A new version is in force from the next price",
                "interval (5 minutes) on; usage is priced by the version in force at its interval. A file with",
                "errors is refused with each line and reason, and the prices in force stay."})
    static final class Prices extends Client {
        @Parameters(index = "0", paramLabel = "show|load", description = "What to do.")
        String action;

        @Parameters(index = "1", arity = "0..1", paramLabel = "FILE", description = "The prices file, for load.")
        Path file;

        @Override
        int run(AccountingClient client) throws IOException {
            var reply = switch (action) {
                case "show" -> client.prices();
                case "load" -> {
                    if (file == null) {
                        throw new IllegalArgumentException("prices load needs the prices file");
                    }
                    String text = Files.readString(file, StandardCharsets.UTF_8);
                    try {
                        PriceTable.parse(text); // refused here already, with every line and reason
                    } catch (PriceTable.InvalidPricesException e) {
                        err().println("cx accounting prices load: " + file + ": " + e.getMessage());
                        yield null;
                    }
                    yield client.loadPrices(text, Instant.now());
                }
                default -> throw new IllegalArgumentException("prices " + action + ": say show or load FILE");
            };
            if (reply == null) {
                return 1;
            }
            int version = reply.path("version").asInt();
            out().println(version == 0 ? "# no prices loaded: everything is free"
                    : "# version " + version + ", in force from " + Instant.ofEpochMilli(reply.path("from").asLong())
                    + ", loaded by " + reply.path("by").asText());
            return print(this, reply.path("text").asText());
        }
    }

    @Command(name = "balance", mixinStandardHelpOptions = true,
            description = "Each user's credits: charged for their computations, credited for their producers.")
    static final class Balance extends Client {
        @Option(names = "--user", paramLabel = "NAME", description = "Only this user (users other than admins "
                + "see only their own).")
        String user;

        @Mixin
        Formatted formatted;

        @Override
        int run(AccountingClient client) throws IOException {
            return print(this, client.balance(user, formatted.format));
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true,
            description = {"Usage over a period, a row per user (whose computations used it), contributor (whose",
                "producers ran it), host (producer) or computation: executions, duplicates, CPU, offered and wall",
                "hours, GiB in and out, messages, credits charged and credited."})
    static final class ReportCmd extends Period {
        @Option(names = "--by", defaultValue = "user", description = "user, contributor, host or computation. "
                + "Default: ${DEFAULT-VALUE}.")
        Report.By by;

        @Option(names = "--user", paramLabel = "NAME", description = "Only what this user consumed or "
                + "contributed.")
        String user;

        @Mixin
        Formatted formatted;

        @Override
        int run(AccountingClient client) throws IOException {
            return print(this, client.report(from(), to(), by, user, formatted.format));
        }
    }

    @Command(name = "statement", mixinStandardHelpOptions = true,
            description = "A user's statement: charges per computation, credits per producer, and the balance.")
    static final class StatementCmd extends Period {
        @Option(names = "--user", paramLabel = "NAME", description = "Whose (default: yours).")
        String user;

        @Override
        int run(AccountingClient client) throws IOException {
            return print(this, client.statement(user != null ? user : client.identity(), from(), to()));
        }
    }

    @Command(name = "chart", mixinStandardHelpOptions = true,
            description = "Draws consumption and contribution over time, per price interval, as a PNG chart.")
    static final class Chart extends Period {
        @Option(names = "--out", required = true, paramLabel = "FILE.png", description = "The chart to write.")
        Path file;

        @Option(names = "--user", paramLabel = "NAME", description = "Only this user's (default: everyone's, for "
                + "admins; yours otherwise).")
        String user;

        @Override
        int run(AccountingClient client) throws IOException {
            List<Report.Point> points = client.series(from(), to(), user);
            UsageChart.write(points, user != null ? user : "everyone", file);
            out().println("wrote " + file + " (" + points.size() + " intervals)");
            return 0;
        }
    }
}
