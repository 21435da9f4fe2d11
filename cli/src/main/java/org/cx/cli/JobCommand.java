package org.cx.cli;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.consumer.Consumer;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx job}: one computation, by its id, from any machine: where it stands, its result, stopping it. */
@Command(name = "job", mixinStandardHelpOptions = true,
        description = {"Looks at or stops one of your computations, by the id cx submit printed.",
            "Ask the server it was submitted to (or find it with --lookup)."},
        subcommands = {JobCommand.Status.class, JobCommand.Result.class, JobCommand.Cancel.class})
final class JobCommand extends Group {

    /** What every job command needs: where to ask, as whom, and which computation. */
    abstract static class OnJob extends Printing implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "ID",
                description = "The computation's id, in hex as cx submit prints it.")
        String id;

        @Option(names = "--server", paramLabel = "HOST:PORT", description = "The server it was submitted to.")
        String server;

        @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
                description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP)
        String lookup;

        @Mixin
        SecurityOptions security;

        @Override
        public Integer call() throws Exception {
            long computation;
            try {
                computation = Long.parseUnsignedLong(id, 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + id + "' is not a computation id: give the hexadecimal id "
                        + "cx submit printed, e.g. 567bbdb31dc8ccc7");
            }
            Tls tls = security.tls(CredentialRole.USER, false);
            String address = Lookups.serverOrLookup(server, lookup, false, tls);
            try (Consumer consumer = Consumer.connect(address, tls)) {
                return run(consumer, computation);
            } catch (ExecutionException e) {
                err().println("cx job: " + e.getCause().getMessage());
                return 1;
            }
        }

        abstract int run(Consumer consumer, long computation) throws Exception;
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
            out().println(value instanceof Object[] array ? java.util.Arrays.deepToString(array)
                    : value != null && value.getClass().isArray() ? arrayString(value) : String.valueOf(value));
            out().flush();
            return 0;
        }

        private static String arrayString(Object array) {
            return java.util.Arrays.deepToString(new Object[] {array}).replaceFirst("^\\[", "")
                    .replaceFirst("]$", "");
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
