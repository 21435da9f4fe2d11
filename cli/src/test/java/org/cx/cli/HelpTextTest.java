package org.cx.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command's {@code --help} formats cleanly: picocli prints no warning, and each command says what it does. */
class HelpTextTest {
    @Test
    void everyCommandsHelpFormatsWithoutWarnings() {
        List<CommandLine> commands = new ArrayList<>();
        collect(Cx.commandLine(), commands);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<String> undescribed = new ArrayList<>();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            for (CommandLine c : commands) {
                c.getUsageMessage(CommandLine.Help.Ansi.OFF);
                if (c.getCommandSpec().usageMessage().description().length == 0) {
                    undescribed.add(c.getCommandSpec().qualifiedName());
                }
            }
        } finally {
            System.setErr(err);
        }
        String warnings = captured.toString(StandardCharsets.UTF_8);
        assertTrue(commands.size() > 40, "commands found: " + commands.size());
        assertEquals("", warnings, "picocli's warnings while formatting the help of " + commands.size() + " commands");
        assertEquals(List.of(), undescribed, "commands without a description");
    }

    private static void collect(CommandLine c, List<CommandLine> into) {
        into.add(c);
        c.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
    }
}
