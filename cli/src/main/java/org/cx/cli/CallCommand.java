package org.cx.cli;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.api.spi.Calls;
import org.cx.consumer.Consumer;
import org.cx.consumer.CxExecutor;
import org.cx.security.CredentialRole;
import org.cx.security.Tls;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cx call app.jar pkg.Class.method args…}: one function of an application jar, run on a producer. */
@Command(name = "call", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Calls one public static method of an application jar on a producer of the network and prints",
            "what it returns, as a Ninf call calls a remote library function. Arguments are converted to the",
            "method's parameter types (numbers, booleans, strings). Example:",
            "  cx call app.jar org.example.Stats.mean 1 2 3 --server 127.0.0.1:7070"},
        footer = {"", "Exit status: 0 with the result printed, 1 if the call failed (its exception is printed), 2 if "
            + "the jar, the function or the network cannot be used."})
final class CallCommand extends Printing implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "APP.JAR", description = "The application jar.")
    Path jar;

    @Parameters(index = "1", paramLabel = "FUNCTION", description = "The method, as CLASS.METHOD.")
    String function;

    @Parameters(index = "2..*", paramLabel = "ARG", description = "Its arguments.")
    String[] args = new String[0];

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "A task server of the network.")
    String server;

    @Option(names = "--lookup", paramLabel = "HOST:PORT|multicast",
            description = "Find the network at this lookup service." + Lookups.MULTICAST_HELP
                    + Lookups.FALLBACK_HELP)
    String lookup;

    @Option(names = "--timeout", defaultValue = "1h", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "How long to wait for the result. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Mixin
    SecurityOptions security;

    @Override
    public Integer call() throws Exception {
        int dot = function.lastIndexOf('.');
        if (dot <= 0 || dot == function.length() - 1) {
            throw new IllegalArgumentException("'" + function + "' is not CLASS.METHOD, e.g. org.example.Stats.mean");
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException(jar + " is not a file: give the path of an application jar");
        }
        Class<?> type;
        try {
            type = Class.forName(function.substring(0, dot), true,
                    new BundleClassLoader(CodeBundle.of(Files.readAllBytes(jar))));
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(jar + " has no class " + function.substring(0, dot));
        } catch (CodeBundle.InvalidBundleException e) {
            throw new IllegalArgumentException(jar + ": " + e.getMessage());
        }
        Method method = Calls.StaticCall.find(type, function.substring(dot + 1), args.length);
        Object[] values = convert(method, args);
        Tls tls = security.tls(CredentialRole.USER, false);
        String address = Lookups.serverOrLookup(server, lookup, false, tls);
        try (Consumer consumer = Consumer.connect(address, tls)) {
            Object result = CxExecutor.on(consumer).call(type, method.getName(), values)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            out().println(show(result));
            out().flush();
            return 0;
        } catch (ExecutionException e) {
            err().println("cx call: " + function + " failed: " + e.getCause());
            return 1;
        } catch (TimeoutException e) {
            err().printf("cx call: no result from %s after %s%n", function, timeout);
            return 1;
        }
    }

    /** The command line's strings as the method's parameter types, saying which one does not fit. */
    private static Object[] convert(Method method, String[] args) {
        Class<?>[] types = method.getParameterTypes();
        Object[] values = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            Class<?> t = types[i];
            String a = args[i];
            try {
                values[i] = t == String.class || t == Object.class ? a
                        : t == int.class || t == Integer.class ? Integer.valueOf(a)
                        : t == long.class || t == Long.class ? Long.valueOf(a)
                        : t == double.class || t == Double.class ? Double.valueOf(a)
                        : t == float.class || t == Float.class ? Float.valueOf(a)
                        : t == short.class || t == Short.class ? Short.valueOf(a)
                        : t == byte.class || t == Byte.class ? Byte.valueOf(a)
                        : t == boolean.class || t == Boolean.class ? parseBoolean(a)
                        : unsupported(method, i, t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("argument " + (i + 1) + " of " + method.getName() + ", '" + a
                        + "', is not a " + t.getSimpleName());
            }
        }
        return values;
    }

    private static Boolean parseBoolean(String a) {
        if (!a.equalsIgnoreCase("true") && !a.equalsIgnoreCase("false")) {
            throw new NumberFormatException(a);
        }
        return Boolean.valueOf(a);
    }

    private static Object unsupported(Method method, int i, Class<?> t) {
        throw new IllegalArgumentException("parameter " + (i + 1) + " of " + method.getName() + " is a "
                + t.getName() + ", which cannot be given on the command line (numbers, booleans and strings can)");
    }
}
