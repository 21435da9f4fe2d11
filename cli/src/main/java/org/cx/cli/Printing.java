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

    /** A computation's or a call's result as a person reads it: arrays element by element. */
    static String show(Object value) {
        if (value instanceof Object[] array) {
            return java.util.Arrays.deepToString(array);
        }
        if (value != null && value.getClass().isArray()) {
            String wrapped = java.util.Arrays.deepToString(new Object[] {value});
            return wrapped.substring(1, wrapped.length() - 1);
        }
        return String.valueOf(value);
    }
}
