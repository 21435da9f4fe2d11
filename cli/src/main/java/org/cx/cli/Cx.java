package org.cx.cli;

import java.io.IOException;
import java.time.Duration;
import org.cx.api.ComputationFailedException;
import org.cx.accounting.PriceTable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/** The {@code cx} command. */
@Command(name = "cx", mixinStandardHelpOptions = true, versionProvider = Cx.Version.class,
        description = {
            "CX, a computational exchange: consumers store DAGs of non-blocking tasks into \"the\" task server,",
            "producers prefetch and run them, and every task's effects apply exactly once.",
            "",
            "Start with 'cx demo'. Then run the parts as separate processes:",
            "  cx server --port 7070",
            "  cx producer --server 127.0.0.1:7070 --workers 4",
            "  cx run fib --server 127.0.0.1:7070 --n 25",
            "  cx submit examples/target/examples-0.1.0-SNAPSHOT-fib-app.jar --server 127.0.0.1:7070 25"},
        subcommands = {DemoCommand.class, LookupCommand.class, ServerCommand.class, ProducerCommand.class, RunCommand.class,
                DistCommand.class,
                SubmitCommand.class, CallCommand.class, JobCommand.class, StatusCommand.class, CompletionCommand.class,
                BenchCommand.class, NetworkCommand.class, SimCommand.class, KeysCommand.class, FsCommand.class,
                AccountingCommand.class,
                CommandLine.HelpCommand.class})
public final class Cx implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        bridgeJavaLogging();
        System.exit(commandLine().execute(args));
    }

    /** Sends what logs through java.util.logging (Apache River, the JDK) to SLF4J: one log, in one format. */
    static void bridgeJavaLogging() {
        if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
            org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
            org.slf4j.bridge.SLF4JBridgeHandler.install();
        }
    }

    /** Descriptions are written as lines of up to this many characters; a narrower layout would break them. */
    private static final int HELP_WIDTH = 110;

    /** The command line, with error handling that prints what was wrong and how to get help. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Cx());
        cl.setUsageHelpWidth(HELP_WIDTH);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Duration.class, new DurationConverter());
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof IllegalArgumentException || e instanceof IOException
                    || e instanceof ComputationFailedException || e instanceof IllegalStateException
                    || e instanceof java.sql.SQLException || e instanceof PriceTable.InvalidPricesException) {
                commandLine.getErr().println("cx: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"cx 0.1.0 (protocol " + org.cx.wire.WireConfig.PROTOCOL_VERSION + ", Java "
                    + Runtime.version() + ")"};
        }
    }

}
