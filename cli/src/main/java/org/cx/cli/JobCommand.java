package org.cx.cli;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.api.Diagnosis;
import org.cx.consumer.Consumer;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx job}: one computation, by its id, from any machine: where it stands, its result, stopping it. */
@Command(name = "job", mixinStandardHelpOptions = true,
        description = {"Lists, looks at, waits for, reprioritizes or stops your computations, by the id cx submit "
            + "printed.", "Ask the server they were submitted to (or find it with --lookup)."},
        subcommands = {JobCommand.ListJobs.class, JobCommand.Status.class, JobCommand.Wait.class,
            JobCommand.Result.class, JobCommand.Priority.class, JobCommand.Cancel.class})
final class JobCommand extends Group {

    /** What every job command needs: where to ask, and as whom. */
    abstract static class OnServer extends Printing implements Callable<Integer> {
        @Option(names = "--server", paramLabel = "HOST:PORT", description = "The server they were submitted to.")
        String server;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP)
        String lookup;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            long computation = computation();
            Tls tls = security.tls(CredentialRole.USER, false);
            String address = Lookups.serverOrLookup(server, lookup, false, tls);
            try (Consumer consumer = Consumer.connect(address, tls)) {
                return run(consumer, computation);
            } catch (ExecutionException e) {
                err().println("cx job: " + e.getCause().getMessage());
                return 1;
            }
        }

        /** The computation asked about (0: none), checked before connecting. */
        long computation() {
            return 0;
        }

        abstract int run(Consumer consumer, long computation) throws Exception;
    }

    /** A job command about one computation. */
    abstract static class OnJob extends OnServer {
        @Parameters(index = "0", paramLabel = "ID",
                description = "The computation's id, in hex as cx submit printed it.")
        String id;

        @Override
        long computation() {
            try {
                return Long.parseUnsignedLong(id, 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + id + "' is not a computation id: give the hexadecimal id "
                        + "cx submit printed, e.g. 567bbdb31dc8ccc7");
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists your computations on the server: running ones, and finished ones whose result",
                "was not collected yet (until their retention ends). One line each: id, phase, priority, time,",
                "tasks completed, ready, running and waiting; failures say why."})
    static final class ListJobs extends OnServer {
        @Override
        int run(Consumer consumer, long none) throws Exception {
            List<Diagnosis> all = consumer.computations().get(30, TimeUnit.SECONDS);
            if (all.isEmpty()) {
                out().println("no computations of yours on this server");
            } else {
                out().printf("%-16s  %-7s  %8s  %10s  %12s  %8s  %8s  %8s%n", "ID", "PHASE", "PRIORITY", "TIME",
                        "COMPLETED", "READY", "RUNNING", "WAITING");
            }
            for (Diagnosis d : all) {
                out().printf("%-16s  %-7s  %8d  %9.1fs  %,12d  %,8d  %,8d  %,8d%n", Long.toHexString(d.computation()),
                        d.phase(), d.priority(), d.elapsed().toMillis() / 1000.0, d.completed(), d.ready(),
                        d.running(), d.waiting());
                if (!d.failure().isEmpty()) {
                    out().println("    failed: " + d.failure());
                }
            }
            out().flush();
            return 0;
        }
    }

    @Command(name = "wait", mixinStandardHelpOptions = true,
            description = {"Waits until a computation ends and says how; its result stays on the server for",
                "'cx job result'."},
            footer = {"", "Exit status: 0 if it succeeded, 1 if it failed (or is unknown), 2 if it is still running "
                + "after --timeout."})
    static final class Wait extends OnJob {
        @Option(names = "--timeout", defaultValue = "1h", converter = DurationConverter.class, paramLabel = "DURATION",
                description = "How long to wait. Default: ${DEFAULT-VALUE}.")
        Duration timeout;

        @Override
        int run(Consumer consumer, long computation) throws Exception {
            try {
                consumer.watch(computation).result().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                err().printf("cx job: computation %s is still running after %s%n", Long.toHexString(computation),
                        timeout);
                return 2;
            }
            out().printf("computation %s succeeded%n", Long.toHexString(computation));
            out().flush();
            return 0;
        }
    }

    @Command(name = "priority", mixinStandardHelpOptions = true,
            description = {"Gives a running computation a new priority among your computations: the highest go",
                "first, equal ones share the producers."})
    static final class Priority extends OnJob {
        @Parameters(index = "1", paramLabel = "PRIORITY", description = "The new priority (any integer).")
        int priority;

        @Override
        int run(Consumer consumer, long computation) throws Exception {
            consumer.changePriority(computation, priority).get(30, TimeUnit.SECONDS);
            out().printf("computation %s now has priority %d%n", Long.toHexString(computation), priority);
            out().flush();
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Prints where a computation stands on its server.",
                "Its tasks ready, running and waiting, which inputs the waiting ones lack, and whether it is",
                "stalled (tasks wait and none is ready or running: nothing will send what they lack)."})
    static final class Status extends OnJob {
        @Override
        int run(Consumer consumer, long computation) throws Exception {
            out().println(consumer.diagnose(computation).get(30, TimeUnit.SECONDS).describe());
            out().flush();
            return 0;
        }
    }

    @Command(name = "result", mixinStandardHelpOptions = true,
            description = {"Waits for a computation's result and prints it.",
                "The server keeps a result until it is collected (this collects it) or its retention ends."})
    static final class Result extends OnJob {
        @Option(names = "--timeout", defaultValue = "1h", converter = DurationConverter.class, paramLabel = "DURATION",
                description = "How long to wait. Default: ${DEFAULT-VALUE}.")
        Duration timeout;

        @Override
        int run(Consumer consumer, long computation) throws Exception {
            Object value;
            try {
                value = consumer.collect(computation, r -> { }).result().get(timeout.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                err().printf("cx job: computation %s has no result after %s; ask again later%n",
                        Long.toHexString(computation), timeout);
                return 2;
            }
            out().println(show(value));
            out().flush();
            return 0;
        }

    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = {"Stops a computation: every server and producer drops its tasks."})
    static final class Cancel extends OnJob {
        @Override
        int run(Consumer consumer, long computation) throws Exception {
            consumer.cancel(computation).get(30, TimeUnit.SECONDS);
            out().printf("cancelled computation %s%n", Long.toHexString(computation));
            out().flush();
            return 0;
        }
    }
}
