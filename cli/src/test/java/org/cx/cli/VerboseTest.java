package org.cx.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An error is one line; {@code --verbose} adds its stack trace, on any command. */
class VerboseTest {

    @Test
    void anErrorIsOneLineAndVerboseAddsItsStackTrace() {
        String plain = run("run", "fib", "--n", "5", "--server", "127.0.0.1:1", "--insecure");
        assertEquals(1, plain.lines().count(), plain);
        assertTrue(plain.startsWith("cx: cannot connect to 127.0.0.1:1"), plain);
        assertFalse(plain.contains("\tat "), plain);

        String verbose = run("run", "fib", "--n", "5", "--server", "127.0.0.1:1", "--insecure", "--verbose");
        assertTrue(verbose.startsWith("cx: cannot connect to 127.0.0.1:1"), verbose);
        assertTrue(verbose.contains("\tat org.cx."), "the stack trace follows: " + verbose);
    }

    private static String run(String... args) {
        CommandLine cl = Cx.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        assertEquals(2, cl.execute(args));
        return err.toString();
    }
}
