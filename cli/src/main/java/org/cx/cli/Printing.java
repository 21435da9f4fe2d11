package org.cx.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Spec;

/** Commands print through Picocli's writer, so tests and embedders can capture what users see. */
abstract class Printing {
    @Spec
    CommandLine.Model.CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
