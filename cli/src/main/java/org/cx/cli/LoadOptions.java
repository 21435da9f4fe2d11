package org.cx.cli;

import org.cx.examples.fib.Load;
import picocli.CommandLine.Option;

/** The synthetic-load options shared by {@code cx run fib} and {@code cx bench fib}. */
public final class LoadOptions {

    @Option(names = "--load", defaultValue = "none",
            description = "Synthetic load per task: none, sleep (parks the thread: emulates many remote producers on "
                    + "few cores) or spin (burns CPU). Default: ${DEFAULT-VALUE}.")
    String load;

    @Option(names = "--decompose-ms", defaultValue = "0", paramLabel = "X",
            description = "Load of each decomposition task, in ms. Default: ${DEFAULT-VALUE}.")
    double decomposeMs;

    @Option(names = "--leaf-ms", defaultValue = "0", paramLabel = "Y",
            description = "Load of each boundary (leaf) task, in ms. Default: ${DEFAULT-VALUE}.")
    double leafMs;

    @Option(names = "--compose-ms", defaultValue = "0", paramLabel = "Z",
            description = "Load of each composition task, in ms. Default: ${DEFAULT-VALUE}.")
    double composeMs;

    Load toLoad() {
        Load.Kind kind = switch (load.toLowerCase()) {
            case "none" -> Load.Kind.NONE;
            case "sleep" -> Load.Kind.SLEEP;
            case "spin" -> Load.Kind.SPIN;
            default -> throw new IllegalArgumentException(
                    "--load must be none, sleep or spin, got '" + load + "'");
        };
        if (decomposeMs < 0 || leafMs < 0 || composeMs < 0) {
            throw new IllegalArgumentException("task loads must be >= 0 ms");
        }
        if (kind == Load.Kind.NONE) {
            return Load.NONE;
        }
        return Load.ofMillis(kind, decomposeMs, leafMs, composeMs);
    }

    static LoadOptions of(String load, double decomposeMs, double leafMs, double composeMs) {
        LoadOptions o = new LoadOptions();
        o.load = load;
        o.decomposeMs = decomposeMs;
        o.leafMs = leafMs;
        o.composeMs = composeMs;
        return o;
    }
}
