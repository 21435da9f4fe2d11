package org.cx.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.cx.harness.Json;
import org.cx.harness.MemoryBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cx bench memory}: what a server's scheduling state holds per task. */
@Command(name = "memory", mixinStandardHelpOptions = true,
        description = {"Measures the heap a server's scheduling state takes per task.",
            "Stores N live tasks in a scheduler, half of them ready Fibonacci tasks and half compositions waiting",
            "for both inputs, with their real encoded bodies, and compares the live heap after full collections",
            "before and after. Prints bytes per ready task, per waiting composition, the heap N tasks took, and",
            "the classes holding the most. Run it with a small heap to show that N tasks fit:",
            "CX_JAVA_OPTS=-Xmx512m cx bench memory."})
final class BenchMemoryCommand extends Printing implements Callable<Integer> {
    @Option(names = "--tasks", defaultValue = "1000000", paramLabel = "N",
            description = "Live tasks to store. Default: ${DEFAULT-VALUE}.")
    int tasks;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON to FILE.")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (tasks < 2) {
            throw new IllegalArgumentException("--tasks must be at least 2 (half ready, half waiting), not " + tasks);
        }
        MemoryBench.Result r = MemoryBench.run(tasks);
        out().printf("%,d live tasks: %.0f bytes per ready task, %.0f bytes per waiting composition; %.1f MiB in all "
                + "(max heap %d MiB)%n", r.tasks(), r.bytesPerReadyTask(), r.bytesPerWaitingComposition(),
                r.heapBytes() / 1048576.0, Runtime.getRuntime().maxMemory() >> 20);
        out().println("classes holding the most (live heap at the end):");
        r.topClasses().forEach(line -> out().println("  " + line));
        out().flush();
        if (json != null) {
            Files.writeString(json, Json.write(r));
        }
        return 0;
    }
}
