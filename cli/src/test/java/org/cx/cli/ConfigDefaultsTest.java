package org.cx.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options from the environment and a configuration file: which wins, and what a wrong key gets. */
class ConfigDefaultsTest {
    @TempDir
    Path dir;

    @Test
    void theCommandLineWinsThenTheEnvironmentThenTheFileQualifiedBeforeBareThenTheOptionsOwnDefault()
            throws IOException {
        Path file = write("server.port = 7001\nname = from-file\nbranching = 3\nserver.branching = 4\n"
                + "log-level = debug\n");
        ServerCommand server = parse(Map.of("CX_SERVER_NAME", "from-env", "CX_LOG_FILE", "/tmp/x.log"),
                "server", "--config", file.toString(), "--fail-timeout", "2s");
        assertEquals(7001, server.port, "qualified key in the file");
        assertEquals("from-env", server.name, "the environment before the file");
        assertEquals(4, server.branching, "server.branching before branching");
        assertEquals(java.time.Duration.ofSeconds(2), server.failTimeout, "the command line before all");
        assertEquals("127.0.0.1", server.host, "the option's own default when nobody gives it");

        ServerCommand again = parse(Map.of("CX_SERVER_PORT", "7002"), "server", "--config", file.toString(),
                "--port", "7003");
        assertEquals(7003, again.port);
    }

    @Test
    void optionsOfCxItselfComeFromUnqualifiedNamesWhateverTheCommand() throws IOException {
        CommandLine cl = Cx.commandLine();
        ConfigDefaults.install(cl, new String[] {"server"}, Map.of("CX_LOG_LEVEL", "info", "CX_VERBOSE", "true"));
        cl.parseArgs("server");
        Cx cx = cl.getCommand();
        assertEquals("info", cx.logLevel);
        assertTrue(cx.verbose);
        assertEquals("CX_FS_SERVE_ROOT", ConfigDefaults.variable("fs.serve", "root"));
    }

    @Test
    void aKeyThatNamesNoOptionIsRefusedSayingWhichAndWhatWasMeant() throws IOException {
        Path file = write("serve.port = 7001\n");
        IOException e = assertThrows(IOException.class,
                () -> ConfigDefaults.install(Cx.commandLine(), new String[] {"server", "--config", file.toString()},
                        Map.of()));
        System.out.println(e.getMessage());
        assertTrue(e.getMessage().contains("'serve.port' names no option"), e.getMessage());
        assertTrue(e.getMessage().contains("server.port"), e.getMessage());

        IOException missing = assertThrows(IOException.class, () -> ConfigDefaults.install(Cx.commandLine(),
                new String[] {"server"}, Map.of(ConfigDefaults.CONFIG_VARIABLE, dir.resolve("nope").toString())));
        assertTrue(missing.getMessage().contains("does not exist (given by CX_CONFIG)"), missing.getMessage());
    }

    private Path write(String text) throws IOException {
        Path file = dir.resolve("cx.properties");
        Files.writeString(file, text);
        return file;
    }

    private static ServerCommand parse(Map<String, String> environment, String... args) throws IOException {
        CommandLine cl = Cx.commandLine();
        ConfigDefaults.install(cl, args, environment);
        CommandLine.ParseResult result = cl.parseArgs(args);
        return result.subcommand().commandSpec().commandLine().getCommand();
    }
}
