package org.cx.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every option's value from the environment or a configuration file, when the command line does not give it: the
 * command line wins, then an environment variable, then the file, then the option's own default.
 * <ul>
 *   <li>Environment: {@code CX_} + the command's path + the option's long name, in capitals with {@code _} for spaces
 *   and dashes: {@code CX_SERVER_PORT=7070}, {@code CX_FS_SERVE_ROOT=/data}; options of {@code cx} itself without a
 *   path ({@code CX_LOG_FILE}).</li>
 *   <li>File ({@code --config FILE} or {@code CX_CONFIG}): Java properties, keyed by the command's path and the
 *   option's long name ({@code server.port = 7070}, {@code fs.serve.root = /data}), or by the name alone for every
 *   command that has the option ({@code lookup = cx-lookup:4160}). A key that names no option is refused.</li>
 * </ul>
 * A flag takes {@code true} or {@code false}; a repeatable option, values separated by commas.
 */
final class ConfigDefaults implements CommandLine.IDefaultValueProvider {
    /** The environment variable that names a configuration file when {@code --config} does not. */
    static final String CONFIG_VARIABLE = "CX_CONFIG";

    private final Map<String, String> environment;
    private final Properties file;

    private ConfigDefaults(Map<String, String> environment, Properties file) {
        this.environment = environment;
        this.file = file;
    }

    /** Defaults from {@code environment} alone (until {@link #install} reads the arguments for a file). */
    static ConfigDefaults of(Map<String, String> environment) {
        return new ConfigDefaults(environment, new Properties());
    }

    /**
     * Installs the defaults on {@code cl} and its subcommands, from {@code environment} and the file that
     * {@code args} ({@code --config FILE}) or the environment names; checks every key of the file against the
     * commands' options.
     */
    static void install(CommandLine cl, String[] args, Map<String, String> environment) throws IOException {
        String name = configArgument(args);
        if (name == null) {
            name = environment.get(CONFIG_VARIABLE);
        }
        Properties file = new Properties();
        if (name != null && !name.isBlank()) {
            Path path = Path.of(name);
            if (!Files.isRegularFile(path)) {
                throw new IOException("configuration file " + path + " does not exist (given by "
                        + (configArgument(args) != null ? "--config" : CONFIG_VARIABLE) + ")");
            }
            try (Reader in = Files.newBufferedReader(path)) {
                file.load(in);
            }
            check(cl, file, path);
        }
        cl.setDefaultValueProvider(new ConfigDefaults(environment, file));
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || option.longestName().equals("--config")) {
            return null;
        }
        String name = option.longestName().replaceFirst("^-+", "");
        String path = option.scopeType() == CommandLine.ScopeType.INHERIT ? "" : path(option.command());
        String value = environment.get(variable(path, name));
        if (value == null) {
            value = file.getProperty(path.isEmpty() ? name : path + "." + name);
        }
        if (value == null && !path.isEmpty()) {
            value = file.getProperty(name);
        }
        return value == null ? null : value.trim();
    }

    /** The environment variable for option {@code name} of the command at {@code path} ("fs.serve"). */
    static String variable(String path, String name) {
        String key = path.isEmpty() ? name : path + "." + name;
        return "CX_" + key.replaceAll("[.\\-]", "_").toUpperCase(Locale.ROOT);
    }

    /** A command's path below {@code cx}, dotted: "" for cx itself, "fs.serve" for {@code cx fs serve}. */
    private static String path(CommandSpec command) {
        String qualified = command.qualifiedName(".");
        int dot = qualified.indexOf('.');
        return dot < 0 ? "" : qualified.substring(dot + 1);
    }

    /** The value of {@code --config FILE} or {@code --config=FILE} anywhere in {@code args}, or null. */
    private static String configArgument(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            if (args[i].equals("--config") && i + 1 < args.length) {
                return args[i + 1];
            }
            if (args[i].startsWith("--config=")) {
                return args[i].substring("--config=".length());
            }
        }
        return null;
    }

    /** Refuses a file with a key that names no command's option, saying which and what was meant. */
    private static void check(CommandLine cl, Properties file, Path path) throws IOException {
        Set<String> qualified = new LinkedHashSet<>(); // in the commands' order, for the suggestions
        Set<String> bare = new HashSet<>();
        collect(cl.getCommandSpec(), qualified, bare);
        for (String key : file.stringPropertyNames()) {
            if (!qualified.contains(key) && !bare.contains(key)) {
                String last = key.substring(key.lastIndexOf('.') + 1);
                String near = String.join(", ", qualified.stream().filter(k -> k.endsWith("." + last)).limit(4)
                        .toList());
                throw new IOException("configuration file " + path + ": '" + key + "' names no option of any cx "
                        + "command (keys are COMMAND.OPTION, e.g. server.port, or OPTION alone)"
                        + (near.isEmpty() ? "" : "; did you mean " + near + "?"));
            }
        }
    }

    private static void collect(CommandSpec command, Set<String> qualified, Set<String> bare) {
        String path = path(command);
        for (OptionSpec option : command.options()) {
            String name = option.longestName().replaceFirst("^-+", "");
            qualified.add(path.isEmpty() ? name : path + "." + name);
            bare.add(name);
        }
        for (CommandLine sub : command.subcommands().values()) {
            collect(sub.getCommandSpec(), qualified, bare);
        }
    }
}
