package org.cx.cli;

import picocli.CommandLine;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands: run without one, it says which there are. */
abstract class Group implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "'" + spec.name() + "' needs one of: " + String.join(", ", spec.subcommands().keySet()));
    }
}
