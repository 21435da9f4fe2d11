package org.cx.cli;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.concurrent.Callable;
import org.cx.producer.Thermostat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx producer thermostat}: the caps on what task code may use on this machine, by time of the week. */
@Command(name = "thermostat", mixinStandardHelpOptions = true,
        description = {"Shows or changes the thermostat: caps on the share of this machine's processors and the "
                + "memory that task code may use, outside any interval and within intervals of the week.",
            "A running producer reads the file again within a second of a change; where intervals overlap, the one "
                    + "listed last wins for what it sets."},
        subcommands = {ProducerThermostatCommand.Show.class, ProducerThermostatCommand.SetCaps.class,
            ProducerThermostatCommand.Remove.class})
final class ProducerThermostatCommand extends Group {

    /** The file every thermostat command works on. */
    abstract static class OnFile extends Printing implements Callable<Integer> {
        @Option(names = "--file", paramLabel = "FILE",
                description = "The thermostat file. Default: ~/.cx/thermostat.json, which producers read unless "
                        + "started with --thermostat.")
        Path file;

        Path file() {
            return file != null ? file : ProducerCommand.defaultThermostat();
        }

        void show(Thermostat t) {
            out().println("thermostat " + file());
            for (String line : t.describe()) {
                out().println("  " + line);
            }
            out().println("  in force now: " + t.capAt(LocalDateTime.now()));
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Shows the caps and the one in force now.")
    static final class Show extends OnFile {
        @Override
        public Integer call() throws Exception {
            show(Thermostat.read(file()));
            return 0;
        }
    }

    /** An interval named by its days and times. */
    abstract static class WithInterval extends OnFile {
        @Option(names = "--days", paramLabel = "DAYS",
                description = "Days of the interval: mon-fri, sat,sun, mon,wed-fri or daily. Default: daily.")
        String days;

        @Option(names = "--from", paramLabel = "HH:MM", description = "Start of the interval, each of its days.")
        String from;

        @Option(names = "--to", paramLabel = "HH:MM",
                description = "End of the interval (not after --from: it runs over midnight into the next day).")
        String to;

        boolean hasInterval() {
            if ((from == null) != (to == null) || days != null && from == null) {
                throw new IllegalArgumentException("an interval needs both --from and --to (and --days, or it is "
                        + "daily)");
            }
            return from != null;
        }

        java.util.Set<java.time.DayOfWeek> days() {
            return Thermostat.parseDays(days != null ? days : "daily");
        }

        LocalTime from() {
            return Thermostat.parseTime(from);
        }

        LocalTime to() {
            return Thermostat.parseTime(to);
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Sets caps: outside intervals, or within the interval --days/--from/--to (replacing one "
                    + "of the same days and times).",
                "Example: cx producer thermostat set --cpu 50%% --memory 2G --from 09:00 --to 17:00 --days mon-fri"})
    static final class SetCaps extends WithInterval {
        @Option(names = "--cpu", paramLabel = "PERCENT",
                description = "Share of all this machine's processors task code may use: 0%% (none) to 100%%.")
        String cpu;

        @Option(names = "--memory", paramLabel = "AMOUNT",
                description = "Memory task code may use: bytes with a unit (512M, 2G), a share of this machine's "
                        + "memory (50%%), or 'unlimited'.")
        String memory;

        @Override
        public Integer call() throws Exception {
            if (cpu == null && memory == null) {
                throw new IllegalArgumentException("say what to set: --cpu, --memory, or both");
            }
            Double c = cpu == null ? null : Thermostat.parseCpu(cpu);
            Thermostat.Memory m = memory == null ? null : Thermostat.Memory.parse(memory);
            Thermostat t = Thermostat.read(file());
            t = hasInterval() ? t.with(new Thermostat.Interval(days(), from(), to(), c, m)) : t.withDefault(c, m);
            t.write(file());
            show(t);
            return 0;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = "Removes the interval --days/--from/--to; outside intervals, the caps stay.")
    static final class Remove extends WithInterval {
        @Override
        public Integer call() throws Exception {
            if (!hasInterval()) {
                throw new IllegalArgumentException("say which interval to remove: --from, --to (and --days)");
            }
            Thermostat t = Thermostat.read(file());
            Thermostat next = t.without(days(), from(), to());
            if (next.equals(t)) {
                throw new IllegalArgumentException("there is no interval " + Thermostat.formatDays(days()) + " "
                        + from() + "-" + to() + " in " + file());
            }
            next.write(file());
            show(next);
            return 0;
        }
    }
}
