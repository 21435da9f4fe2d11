package org.cx.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import org.cx.api.Application;
import org.cx.api.SubmitOptions;
import org.cx.consumer.Consumer;
import org.cx.consumer.NetworkProbe;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import org.cx.wire.Message;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cx submit app.jar [args…]}: runs a consumer application packaged as an ordinary jar. The jar's classes
 * become the computations' code bundle, uploaded once to the server and passed down the tree to the producers; the
 * application's {@link Application#run} gets a connected task server. Progress goes to stderr while it runs.
 */
@Command(name = "submit", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs a consumer application jar on a running network; nobody installs the jar on producers.",
            "The jar's entry point implements org.cx.api.Application and is named by the manifest attribute",
            "CX-Application (or Main-Class), or by --main-class. Example:",
            "  cx submit examples/target/examples-0.1.0-SNAPSHOT-fib-app.jar --server 127.0.0.1:7070 30 1",
            "  cx submit examples/target/examples-0.1.0-SNAPSHOT-fib-app.jar --lookup 127.0.0.1:4160 30 1"},
        footer = {"", "Exit status: the application's, or 2 when the jar or the network cannot be used."})
final class SubmitCommand extends Printing implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "APP.JAR", description = "The application jar.")
    Path jar;

    @Parameters(index = "1..*", paramLabel = "ARG", description = "Arguments for the application.")
    String[] args = new String[0];

    @Option(names = "--server", paramLabel = "HOST:PORT",
            description = "The task server to submit to: the network's primary root.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
            description = "Find the network at this lookup service (see 'cx lookup')." + Lookups.MULTICAST_HELP
                    + Lookups.FALLBACK_HELP)
    String lookup;

    @Option(names = "--main-class", paramLabel = "CLASS",
            description = "The Application class, if the jar's manifest does not name it.")
    String mainClass;

    @Mixin
    SecurityOptions security;

    @Option(names = "--priority", defaultValue = "0", paramLabel = "N",
            description = "Rank of the application's computations among your other computations: the highest "
                    + "go first, equal ones share the producers (change it later with 'cx job priority'). Users "
                    + "share the producers by weight whatever their priorities. Default: ${DEFAULT-VALUE}.")
    int priority;

    @Option(names = "--timeout", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Fail each computation that runs longer than this (e.g. 90s, 10m, 2h). Default: none.")
    Duration timeout;

    @Option(names = "--no-progress", description = "Do not show progress while the application runs.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        CodeBundle bundle = readBundle();
        Application app = instantiate(bundle);
        Tls tls = security.tls(CredentialRole.USER, false);
        server = Lookups.serverOrLookup(server, lookup, false, tls);
        err().printf("cx submit: %s as code bundle %s (%,d bytes)%n", jar.getFileName(),
                CodeBundle.shortHash(bundle.hash()), bundle.size());
        err().flush();
        long start = System.nanoTime();
        Progress progress = noProgress ? null : new Progress(server, tls, err());
        int status;
        Thread me = Thread.currentThread();
        ClassLoader previous = me.getContextClassLoader();
        try (Consumer consumer = Consumer.connect(server, tls)) {
            consumer.defaultOptions(SubmitOptions.defaults().withPriority(priority).withTimeout(timeout));
            consumer.onAccepted(id -> {
                err().printf("cx submit: computation %s started%n", Long.toHexString(id));
                err().flush();
            });
            Thread cancelOnExit = new Thread(() -> cancelRunning(consumer), "cx-submit-cancel");
            Runtime.getRuntime().addShutdownHook(cancelOnExit);
            me.setContextClassLoader(app.getClass().getClassLoader());
            try {
                status = app.run(consumer, args);
            } catch (IllegalArgumentException e) { // a NumberFormatException from parsing its arguments, say
                throw new IllegalArgumentException("the application " + app.getClass().getSimpleName()
                        + " refused its arguments " + java.util.Arrays.toString(args) + ": " + e.getMessage()
                        + " (see its usage)", e);
            } catch (java.util.concurrent.ExecutionException e) { // it waited on a computation that failed
                if (e.getCause() instanceof org.cx.api.ComputationFailedException failed) {
                    throw failed;
                }
                throw new IllegalStateException("the application " + app.getClass().getSimpleName() + " failed: "
                        + e.getCause(), e.getCause());
            } finally {
                me.setContextClassLoader(previous);
                if (progress != null) {
                    progress.close();
                }
                Runtime.getRuntime().removeShutdownHook(cancelOnExit);
            }
            err().printf("cx submit: finished with status %d in %.2f s; %,d tasks completed (%,d executions) in the "
                            + "computations that succeeded; uploaded %,d bytes of code%n", status,
                    (System.nanoTime() - start) / 1e9, consumer.tasksCompleted(), consumer.executions(),
                    consumer.bundleBytesSent());
        }
        return status;
    }

    /** Stopped (Ctrl-C, SIGTERM) while computations run: cancel them, so that they do not run on without anyone. */
    private void cancelRunning(Consumer consumer) {
        for (long id : consumer.runningComputations()) {
            try {
                consumer.cancel(id).get(2, java.util.concurrent.TimeUnit.SECONDS);
                err().printf("cx submit: cancelled computation %s%n", Long.toHexString(id));
            } catch (Exception e) {
                err().printf("cx submit: could not cancel computation %s: %s%n", Long.toHexString(id),
                        e.getCause() != null ? e.getCause().getMessage() : e.toString());
            }
        }
        err().flush();
    }

    private CodeBundle readBundle() throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException(jar + " is not a file: give the path of an application jar");
        }
        try {
            return CodeBundle.of(Files.readAllBytes(jar));
        } catch (CodeBundle.InvalidBundleException e) {
            throw new IllegalArgumentException(jar + ": " + e.getMessage());
        }
    }

    private Application instantiate(CodeBundle bundle) {
        String name = mainClass != null ? mainClass : bundle.manifestAttribute("CX-Application");
        if (name == null) {
            name = bundle.manifestAttribute("Main-Class");
        }
        if (name == null) {
            throw new IllegalArgumentException(jar + " names no entry point: add 'CX-Application: your.App' to its "
                    + "manifest or pass --main-class");
        }
        try {
            Class<?> type = Class.forName(name, true, new BundleClassLoader(bundle));
            if (!Application.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException(name + " in " + jar + " does not implement "
                        + Application.class.getName());
            }
            return (Application) type.getConstructor().newInstance();
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("cannot load " + name + " from " + jar + ": " + e.getMessage());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot create " + name + " (it needs a public no-argument "
                    + "constructor): " + e);
        }
    }

    /**
     * Tasks completed and known over the whole network, from the root's view (sums over servers, so other
     * computations running at the same time are counted too), refreshed twice a second on a terminal and every
     * five seconds otherwise.
     */
    private static final class Progress implements AutoCloseable {
        private static final int BAR = 30;
        private final String server;
        private final Tls tls;
        private final PrintWriter err;
        private final boolean terminal = System.console() != null;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cx-submit-progress");
            t.setDaemon(true);
            return t;
        });
        private final long startNanos = System.nanoTime();
        private long baseline = -1;
        private volatile long completed;
        private volatile long known;

        Progress(String server, Tls tls, PrintWriter err) {
            this.server = server;
            this.tls = tls;
            this.err = err;
            long period = terminal ? 500 : 5000;
            timer.scheduleWithFixedDelay(this::refresh, 300, period, TimeUnit.MILLISECONDS);
        }

        private void refresh() {
            Message.NetworkStatus s;
            try {
                s = NetworkProbe.status(server, tls);
            } catch (IOException e) {
                return; // a repair or a busy root: try again next time
            }
            long done = 0;
            long stored = 0;
            for (Message.ServerStatus r : s.servers()) {
                done += Math.max(0, r.completed());
                stored += Math.max(0, r.tasks());
            }
            if (baseline < 0) {
                baseline = done;
            }
            completed = done - baseline;
            known = completed + stored;
            double elapsed = (System.nanoTime() - startNanos) / 1e9;
            double rate = completed / Math.max(elapsed, 1e-3);
            String eta = rate > 0 && known > completed ? String.format("%.0f s", (known - completed) / rate) : "?";
            int filled = known == 0 ? 0 : (int) (BAR * completed / known);
            String line = String.format("[%s%s] %,d / %,d tasks  %,.0f/s  %.0f s elapsed  ~%s left  (%d server%s)",
                    "#".repeat(filled), ".".repeat(BAR - filled), completed, known, rate, elapsed, eta,
                    s.servers().length, s.servers().length == 1 ? "" : "s");
            err.print(terminal ? "\r" + line : line + System.lineSeparator());
            err.flush();
        }

        @Override
        public void close() {
            timer.shutdownNow();
            if (terminal) {
                err.println();
            }
        }
    }
}
