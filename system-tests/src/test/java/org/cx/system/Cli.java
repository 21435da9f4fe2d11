package org.cx.system;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.cx.cli.Cx;
import picocli.CommandLine;

/** Runs the {@code cx} command in this process, as a user would, and keeps what it printed. */
final class Cli {

    private Cli() {
    }

    /** One command's exit status and output. */
    record Run(int exit, String out, String err) {
    }

    static Run cx(String... args) {
        CommandLine cl = Cx.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }
}
