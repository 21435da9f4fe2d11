package org.cx.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.cx.api.ComputationFailedException;
import org.cx.accounting.PriceTable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
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

    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = {"Read options not given on the command line from FILE (Java properties: 'server.port = "
                + "7070', or 'lookup = host:4160' for every command with --lookup), after environment variables "
                + "(CX_SERVER_PORT=7070). Default: $CX_CONFIG, if set."})
    String config;

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "On an error, print its stack trace too (for a bug report).")
    boolean verbose;

    @Option(names = "--log-level", paramLabel = "LEVEL", scope = ScopeType.INHERIT,
            description = "Log at this level: ERROR, WARN, INFO, DEBUG or TRACE. Default: WARN.")
    String logLevel;

    @Option(names = "--log-file", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Append the log to FILE instead of the standard error (created if missing).")
    Path logFile;

    public static void main(String[] args) {
        bridgeJavaLogging();
        System.exit(execute(commandLine(), args));
    }

    /**
     * Runs {@code args} on {@code cl} as {@code cx} does: options not given come from the environment and the
     * configuration file ({@link ConfigDefaults}); its exit status.
     */
    public static int execute(CommandLine cl, String... args) {
        try {
            ConfigDefaults.install(cl, args, System.getenv());
        } catch (IOException | RuntimeException e) {
            cl.getErr().println("cx: " + e.getMessage());
            cl.getErr().flush();
            return 2;
        }
        return cl.execute(args);
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

    /**
     * The command line, with error handling that prints what was wrong in one line (and the stack trace with
     * {@code --verbose}), and the logging options applied before the command runs.
     */
    public static CommandLine commandLine() {
        Cx cx = new Cx();
        CommandLine cl = new CommandLine(cx);
        cl.setUsageHelpWidth(HELP_WIDTH);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Duration.class, new DurationConverter());
        cl.setDefaultValueProvider(ConfigDefaults.of(System.getenv()));
        cl.setExecutionStrategy(parseResult -> {
            LogSettings.apply(cx.logLevel, cx.logFile);
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler(Cx::wrongArguments);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            boolean expected = e instanceof IllegalArgumentException || e instanceof IOException
                    || e instanceof ComputationFailedException || e instanceof IllegalStateException
                    || e instanceof java.sql.SQLException || e instanceof PriceTable.InvalidPricesException;
            String message = e.getMessage() != null ? e.getMessage() : e.toString();
            commandLine.getErr().println("cx: " + (expected ? message : "unexpected " + e.getClass().getSimpleName()
                    + ": " + message + (cx.verbose ? "" : " (run again with --verbose for the stack trace)")));
            if (cx.verbose) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            return expected ? 2 : 1;
        });
        return cl;
    }

    /**
     * A wrong flag or argument: what was wrong, picocli's guesses at what was meant, and where the options are listed,
     * rather than the whole usage (which buried the one line that mattered). Exits with picocli's usage-error code.
     */
    private static int wrongArguments(CommandLine.ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        java.io.PrintWriter err = commandLine.getErr();
        err.println(commandLine.getColorScheme().errorText(e.getMessage()));
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("'" + commandLine.getCommandSpec().qualifiedName() + " --help' lists its options.");
        err.flush();
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
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
