package org.cx.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.cx.discovery.Discovery;
import org.cx.discovery.Networks;
import org.cx.discovery.RiverDiscovery;
import org.cx.producer.BundleDiskCache;
import org.cx.producer.Producer;
import org.cx.producer.CpuCapMode;
import org.cx.producer.OwnerSettings;
import org.cx.producer.ProducerConfig;
import org.cx.producer.RunWhen;
import org.cx.producer.Thermostat;
import org.cx.producer.ServerFinder;
import org.cx.producer.TaskBox;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.wire.WireClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cx producer}: a producer attached to a task server. */
@Command(name = "producer", mixinStandardHelpOptions = true,
        subcommands = {ProducerThermostatCommand.class, ProducerStatusCommand.class,
            ProducerInstallCommand.Install.class, ProducerInstallCommand.Uninstall.class},
        description = {"Runs a producer: a daemon that attaches to a task server and runs its tasks until stopped.",
            "It waits for a server (or lookup service) that is not there yet, and looks again, with back-off, "
                    + "whenever it loses its network; if its server fails, it first moves to a member of that "
                    + "server's mirror group (named when it attached).",
            "On SIGTERM (or Ctrl-C) it gives back the tasks it has not started, lets running ones finish for up to "
                    + "--grace, and exits.",
            "Task code runs in one worker process per worker, inside a bubblewrap sandbox where the machine has one "
                    + "(see --task-isolation), never in the producer's own JVM unless asked.",
            "The machine's owner decides when task code runs (--run-when) and caps what it uses with a thermostat "
                    + "file ('cx producer thermostat'); 'cx producer status' shows what the producer does."})
final class ProducerCommand extends Printing implements Callable<Integer> {

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "The task server to attach to.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
            description = "Find a task server (the one with the fewest producers) at this lookup service."
                    + Lookups.MULTICAST_HELP + Lookups.FALLBACK_HELP)
    String lookup;

    @Option(names = "--workers", defaultValue = "1", paramLabel = "W",
            description = "Worker threads. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--no-prefetch", description = "Ask for a task only when a worker is idle (experiments).")
    boolean noPrefetch;

    @Option(names = "--name", defaultValue = "producer", description = "Name in the server's logs. Default: ${DEFAULT-VALUE}.")
    String name;

    @Mixin
    JmxOptions jmxOptions;

    @Mixin
    WebOptions webOptions;

    @Mixin
    SecurityOptions security;

    @Option(names = "--speed", defaultValue = "1.0", paramLabel = "S",
            description = "This host's speed relative to a reference host, as tasks see it "
                    + "(TaskContext.hostSpeed): synthetic benchmark loads take 1/S of their time, to emulate a "
                    + "mix of processor types. Default: ${DEFAULT-VALUE}.")
    double speed;

    @Option(names = "--task-isolation", defaultValue = "auto", paramLabel = "MODE",
            converter = IsolationConverter.class,
            description = {"Where task code runs: 'sandbox' (worker processes in bubblewrap: no network, no files "
                    + "but the JDK, the class path and a scratch directory, an unprivileged user), 'process' (worker "
                    + "processes as this user), 'in-process' (in this JVM: only for code you trust), or 'auto' "
                    + "(the sandbox if bubblewrap works here, else process, with a warning). Default: "
                    + "${DEFAULT-VALUE}."})
    TaskBox.Isolation isolation;

    @Option(names = "--task-heap", defaultValue = "" + TaskBox.DEFAULT_HEAP_MIB, paramLabel = "MIB",
            description = "Heap of each worker process, in MiB; a task that needs more fails, saying so. "
                    + "Default: ${DEFAULT-VALUE}.")
    int taskHeapMiB;

    @Option(names = "--task-cpu-limit", defaultValue = "1h", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "CPU time one task may use; a task that uses more is stopped and fails, saying so "
                    + "(not enforced in-process). Default: ${DEFAULT-VALUE}.")
    Duration taskCpuLimit;

    @Option(names = "--grace", defaultValue = "30s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "On SIGTERM, how long running tasks may go on to finish (their results are kept); "
                    + "cached tasks are given back at once. Default: ${DEFAULT-VALUE}.")
    Duration grace;

    @Option(names = "--run-when", defaultValue = "always", paramLabel = "WHEN", converter = RunWhenConverter.class,
            description = {"When task code runs: 'always' (as the thermostat allows), 'idle' (while the owner is "
                    + "away: no keyboard or mouse input for --idle-after where a desktop session exists, and the "
                    + "owner's own programs under --owner-cpu; when the owner comes back, running tasks are frozen "
                    + "at once), or 'schedule' (only within the thermostat's intervals). Default: ${DEFAULT-VALUE}."})
    RunWhen runWhen;

    @Option(names = "--idle-after", defaultValue = "5m", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --run-when idle: input-free time after which the owner counts as away. "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration idleAfter;

    @Option(names = "--owner-cpu", defaultValue = "25%", paramLabel = "PERCENT",
            description = "With --run-when idle: the owner's own programs using more of the machine's processors "
                    + "than this count as the owner being there. Default: ${DEFAULT-VALUE}.")
    String ownerCpu;

    @Option(names = "--give-back-after", defaultValue = "1m", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "A pause (the owner came back, or the thermostat allows no CPU) longer than this gives "
                    + "the producer's tasks back to its server, for others to run. Default: ${DEFAULT-VALUE}.")
    Duration giveBackAfter;

    @Option(names = "--thermostat", paramLabel = "FILE",
            description = "The thermostat file: caps on the CPU and memory task code may use, by time of the "
                    + "week; re-read within a second of a change; see 'cx producer thermostat'. "
                    + "Default: ~/.cx/thermostat.json (no file: no caps).")
    Path thermostat;

    @Option(names = "--cpu-cap-by", defaultValue = "workers", paramLabel = "HOW", converter = CapModeConverter.class,
            description = "How a CPU cap is kept: 'workers' (only as many workers as the cap has processors, "
                    + "rounded up, duty-cycled only for the fraction) or 'duty-cycle' (every worker, stopped for part "
                    + "of each half second). "
                    + "Default: ${DEFAULT-VALUE}.")
    CpuCapMode cpuCapBy;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the producer writes its status (for 'cx producer status') and its log of offered "
                    + "capacity. Default: ~/.cx/producers/NAME.")
    Path stateDir;

    @Option(names = "--bundle-cache", paramLabel = "DIR",
            description = "Where code and shared data bundles are kept on disk for later computations and restarts "
                    + "(shared by the producers of a host). Default: ~/.cx/bundle-cache.")
    Path bundleCache;

    @Option(names = "--bundle-cache-size", defaultValue = "2048", paramLabel = "MIB",
            description = "Bytes of bundles kept on disk at most, in MiB; least recently used first out; "
                    + "0: keep none on disk. Default: ${DEFAULT-VALUE}.")
    long bundleCacheMiB;

    @Option(names = "--fs-names", paramLabel = "HOST:PORT[,HOST:PORT]",
            description = "The federated file service tasks reach through TaskContext.files(), acting for their "
                    + "computation's owner: its name services (primary and standby). Default: $CX_FS_NAMES, else "
                    + "with --lookup the name service registered there, else none.")
    String fsNames;

    /** The thermostat file this user's producers read unless told another. */
    static Path defaultThermostat() {
        return CxHome.dir().resolve("thermostat.json");
    }

    /** Where a producer named {@code name} writes its status unless told another place. */
    static Path defaultStateDir(String name) {
        return CxHome.dir().resolve("producers").resolve(name);
    }

    /** Reads {@code always}, {@code idle} or {@code schedule}. */
    static final class RunWhenConverter implements picocli.CommandLine.ITypeConverter<RunWhen> {
        @Override
        public RunWhen convert(String value) {
            for (RunWhen w : RunWhen.values()) {
                if (w.name().equalsIgnoreCase(value)) {
                    return w;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a time to run: choose "
                    + "always, idle or schedule");
        }
    }

    /** Reads {@code workers} or {@code duty-cycle}. */
    static final class CapModeConverter implements picocli.CommandLine.ITypeConverter<CpuCapMode> {
        @Override
        public CpuCapMode convert(String value) {
            for (CpuCapMode m : CpuCapMode.values()) {
                if (m.name().replace('_', '-').equalsIgnoreCase(value)) {
                    return m;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a way to cap CPU: choose "
                    + "workers or duty-cycle");
        }
    }

    /** Reads {@code sandbox}, {@code process}, {@code in-process} or {@code auto}. */
    static final class IsolationConverter implements picocli.CommandLine.ITypeConverter<TaskBox.Isolation> {
        @Override
        public TaskBox.Isolation convert(String value) {
            for (TaskBox.Isolation i : TaskBox.Isolation.values()) {
                if (i.name().replace('_', '-').equalsIgnoreCase(value)) {
                    return i;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a task isolation: "
                    + "choose sandbox, process, in-process or auto");
        }
    }

    /** The name services tasks reach: --fs-names, $CX_FS_NAMES, or those registered at --lookup; null: none. */
    private String fileService() throws IOException {
        if (fsNames != null) {
            return fsNames;
        }
        String env = System.getenv("CX_FS_NAMES");
        if (env != null && !env.isBlank()) {
            return env;
        }
        if (lookup == null) {
            return null;
        }
        List<String> found = Lookups.registered(lookup, Discovery.FS_NAMES);
        return found.isEmpty() ? null : String.join(",", found);
    }

    @Override
    public Integer call() throws Exception {
        if (!(speed > 0) || speed > ProducerConfig.MAX_SPEED) {
            throw new IllegalArgumentException("--speed must be in (0, " + ProducerConfig.MAX_SPEED + "], got "
                    + speed);
        }
        Tls tls = security.tls(CredentialRole.PRODUCER, false);
        if (server == null && lookup == null) {
            throw new IllegalArgumentException("give --server HOST:PORT or --lookup HOST:PORT (a lookup service "
                    + "started with 'cx lookup')");
        }
        InetSocketAddress address = server == null ? null : WireClient.parseAddress(server); // checked now
        ServerFinder finder = lookup == null ? ServerFinder.at(server) : () -> {
            List<String> found = new java.util.ArrayList<>();
            if (server != null) {
                found.add(server);
            }
            try (RiverDiscovery discovery = RiverDiscovery.connect(lookup)) {
                found.addAll(Networks.serversForProducer(discovery, tls));
            } catch (IOException e) {
                if (found.isEmpty()) {
                    throw e;
                }
            }
            return found.stream().distinct().toList();
        };
        String jmx = jmxOptions.start("127.0.0.1", tls);
        if (bundleCacheMiB < 0) {
            throw new IllegalArgumentException("--bundle-cache-size must be 0 or more MiB, got " + bundleCacheMiB);
        }
        Path thermostatFile = thermostat != null ? thermostat : defaultThermostat();
        Thermostat.read(thermostatFile); // a malformed one is refused now, saying where, rather than run uncapped
        ProducerConfig config = ProducerConfig.of(address, workers, tls).withName(name).withPrefetch(!noPrefetch)
                .withJmx(jmx).withSpeed(speed).withBox(new TaskBox(isolation, taskHeapMiB, taskCpuLimit))
                .withCache(bundleCacheMiB == 0 ? BundleDiskCache.Settings.NONE : new BundleDiskCache.Settings(
                        bundleCache != null ? bundleCache : CxHome.dir().resolve("bundle-cache"),
                        bundleCacheMiB << 20))
                .withOwner(new OwnerSettings(runWhen, thermostatFile, idleAfter, Thermostat.parseCpu(ownerCpu),
                        giveBackAfter, cpuCapBy, stateDir != null ? stateDir : defaultStateDir(name)))
                .withFileService(fileService());
        Producer p = Producer.daemon(config, finder, new Producer.Listener() {
            @Override
            public void attached(Producer producer, String at, boolean again) {
                say("producer '" + name + "' attached to " + at + " with " + workers + " worker"
                        + (workers == 1 ? "" : "s") + "; task code runs " + where(producer.isolation()));
            }

            @Override
            public void waiting(String problem, Duration next) {
                say("producer '" + name + "' waits for a server: " + problem + "; trying again in "
                        + Math.max(1, Math.round(next.toMillis() / 1000.0)) + " s");
            }
        });
        Thread stopper = new Thread(() -> {
            say("producer '" + name + "' stopping: giving back its cached tasks, letting running ones finish "
                    + "(for at most " + grace.toSeconds() + " s)");
            p.shutdown(grace);
            say("producer '" + name + "' stopped (" + p.tasksRun() + " tasks run)");
        }, "cx-producer-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        p.firstTask().thenRun(() -> say("producer '" + name + "' ran its first task "
                + (System.currentTimeMillis() - java.lang.management.ManagementFactory.getRuntimeMXBean()
                .getStartTime()) + " ms after its JVM started"));
        try (WebEndpoint web = webOptions.start("127.0.0.1")) {
            if (web != null) {
                say("metrics: " + web.url(webOptions.host("127.0.0.1")));
            }
            p.disconnected().join();
        }
        return 0;
    }

    private synchronized void say(String line) {
        out().println(line);
        out().flush();
    }

    private static String where(TaskBox.Isolation isolation) {
        return switch (isolation) {
            case SANDBOX -> "in sandboxed worker processes";
            case PROCESS -> "in worker processes (no sandbox)";
            case IN_PROCESS -> "in this JVM";
            case AUTO -> throw new IllegalStateException("resolved when the producer starts");
        };
    }
}
