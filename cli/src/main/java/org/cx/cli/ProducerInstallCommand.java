package org.cx.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code cx producer install} and {@code uninstall}: a producer the machine starts by itself, as a systemd unit on
 * Linux or a launchd agent on macOS; where neither runs (a container), a background process with a pid file.
 */
final class ProducerInstallCommand {
    static final String UNIT = "cx-producer.service";
    static final String LAUNCHD_LABEL = "org.cx.producer";
    static final String PID_FILE = "daemon.pid";

    private ProducerInstallCommand() {
    }

    /** Where the service's file goes and how it is run. */
    abstract static class Placement extends Printing {
        @Option(names = "--user", description = "For this user: starts at login (the default).")
        boolean user;

        @Option(names = "--system", description = "For the whole machine: starts at boot (as root).")
        boolean system;

        @Option(names = "--prefix", paramLabel = "DIR",
                description = "Write the service file under DIR instead of / (packaging, tests); the producer is "
                        + "then started as a plain process, not through systemd or launchd.")
        Path prefix;

        @Option(names = "--name", defaultValue = "producer", description = "The producer's name. Default: "
                + "${DEFAULT-VALUE}.")
        String name;

        boolean macOs() {
            return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("mac");
        }

        /** Whether a service manager runs here and may be used: systemd as PID 1, or launchd on macOS. */
        boolean managed() {
            return prefix == null && (macOs() || Files.isDirectory(Path.of("/run/systemd/system")));
        }

        Path serviceFile() {
            if (user && system) {
                throw new IllegalArgumentException("choose --user or --system, not both");
            }
            Path home = Path.of(System.getProperty("user.home"));
            Path file;
            if (macOs()) {
                file = system ? Path.of("/Library/LaunchDaemons", LAUNCHD_LABEL + ".plist")
                        : home.resolve("Library/LaunchAgents").resolve(LAUNCHD_LABEL + ".plist");
            } else {
                file = system ? Path.of("/etc/systemd/system", UNIT) : home.resolve(".config/systemd/user")
                        .resolve(UNIT);
            }
            return prefix == null ? file : prefix.resolve(Path.of("/").relativize(file.toAbsolutePath()));
        }

        Path stateDir() {
            return ProducerCommand.defaultStateDir(name);
        }

        /** Runs a service manager's command; its output, or an exception saying what failed. */
        String manage(String... command) throws IOException, InterruptedException {
            List<String> c = new ArrayList<>(List.of(command));
            if (!macOs() && !system && c.get(0).equals("systemctl")) {
                c.add(1, "--user");
            }
            Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", c) + " failed: " + text);
            }
            return text;
        }
    }

    @Command(name = "install", mixinStandardHelpOptions = true,
            description = {"Installs and starts this producer as a service of the machine: a systemd unit on Linux "
                    + "(cx-producer.service), a launchd agent on macOS (org.cx.producer); where neither runs, a "
                    + "background process.",
                "Every option it does not know is the producer's (see 'cx producer --help'), checked now: e.g. "
                    + "cx producer install --user --lookup 10.0.0.5:4160 --workers 4 --run-when idle"})
    static final class Install extends Placement implements Callable<Integer> {
        @Option(names = "--thermostat", paramLabel = "FILE",
                description = "Copy this thermostat file to where the producer reads it (~/.cx/thermostat.json).")
        Path thermostat;

        @Unmatched
        List<String> producerOptions = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            List<String> args = new ArrayList<>(producerOptions);
            args.addAll(List.of("--name", name));
            check(args);
            if (thermostat != null) {
                org.cx.producer.Thermostat.read(thermostat); // refused now if malformed
                Files.createDirectories(ProducerCommand.defaultThermostat().getParent());
                Files.copy(thermostat, ProducerCommand.defaultThermostat(),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                out().println("thermostat: " + ProducerCommand.defaultThermostat());
            }
            List<String> command = new ArrayList<>(launcher());
            command.add("producer");
            command.addAll(args);
            Path file = serviceFile();
            Files.createDirectories(file.getParent());
            Files.writeString(file, macOs() ? ServiceFiles.launchd(command, stateDir())
                    : ServiceFiles.systemd(command, system));
            out().println("wrote " + file);
            if (managed()) {
                if (macOs()) {
                    manage("launchctl", "load", "-w", file.toString());
                } else {
                    manage("systemctl", "daemon-reload");
                    manage("systemctl", "enable", "--now", UNIT);
                }
                out().println("started: it runs now and at every " + (system ? "boot" : "login")
                        + "; 'cx producer status' shows what it does");
            } else {
                long pid = startProcess(command);
                out().println("no service manager to use here" + (prefix != null ? " (--prefix)" : " (systemd is "
                        + "not PID 1)") + ": started the producer as process " + pid + "; it does not start again "
                        + "after a reboot; 'cx producer uninstall' stops it");
            }
            return 0;
        }

        /** Refuses options the producer would refuse, now rather than when the service starts. */
        private void check(List<String> args) {
            CommandLine producer = new CommandLine(new ProducerCommand());
            producer.registerConverter(Duration.class, new DurationConverter());
            try {
                producer.parseArgs(args.toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "the producer would refuse its "
                        + "options: " + e.getMessage());
            }
            if (!args.contains("--server") && !args.contains("--lookup")
                    && args.stream().noneMatch(a -> a.startsWith("--server=") || a.startsWith("--lookup="))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "say where the network is: "
                        + "--lookup HOST:PORT (a lookup service) or --server HOST:PORT");
            }
        }

        /** The command that runs this cx: its launcher script, or this Java with this class path. */
        private static List<String> launcher() {
            String script = System.getProperty("cx.launcher");
            if (script != null && Files.isExecutable(Path.of(script))) {
                return List.of(Path.of(script).toAbsolutePath().toString());
            }
            return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), Cx.class.getName());
        }

        /** Starts the producer detached from this command, its output to a log beside its status. */
        private long startProcess(List<String> command) throws IOException {
            Path dir = Files.createDirectories(stateDir());
            Path log = dir.resolve("producer.log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            Files.writeString(dir.resolve(PID_FILE), Long.toString(p.pid()));
            return p.pid();
        }
    }

    @Command(name = "uninstall", mixinStandardHelpOptions = true,
            description = "Stops the installed producer (it gives back its cached tasks and finishes running ones) "
                    + "and removes its service.")
    static final class Uninstall extends Placement implements Callable<Integer> {
        @Override
        public Integer call() throws Exception {
            Path file = serviceFile();
            boolean found = false;
            if (Files.exists(file)) {
                if (managed()) {
                    if (macOs()) {
                        manage("launchctl", "unload", "-w", file.toString());
                    } else {
                        manage("systemctl", "disable", "--now", UNIT);
                    }
                }
                Files.delete(file);
                if (managed() && !macOs()) {
                    manage("systemctl", "daemon-reload");
                }
                out().println("removed " + file);
                found = true;
            }
            Path pidFile = stateDir().resolve(PID_FILE);
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(Files.readString(pidFile).trim());
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.destroy(); // SIGTERM: it gives back its tasks and lets running ones finish
                    h.onExit().orTimeout(90, TimeUnit.SECONDS).exceptionally(t -> null).join();
                });
                Files.delete(pidFile);
                out().println("stopped the producer process " + pid);
                found = true;
            }
            if (!found) {
                err().println("cx producer uninstall: no producer is installed here (no " + file + ")");
                return 1;
            }
            return 0;
        }
    }
}
