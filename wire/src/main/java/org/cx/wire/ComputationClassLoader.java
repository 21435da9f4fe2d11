package org.cx.wire;

import java.util.List;

/**
 * The only way application classes are resolved from the wire: one loader per code source that computations run
 * from. It resolves the application's classes and the JDK, and refuses the CX runtime and its libraries, so bytes
 * from a peer can never instantiate a server, transport or codec class.
 *
 * <p>Computations without a bundle share the process's class path through one such loader (and one warmed-up codec:
 * creating Kryo instances costs about a millisecond, which on every hop of a start-up is visible). Each
 * content-addressed bundle gets its own {@link BundleClassLoader}; the refusal rules are the same.
 */
public class ComputationClassLoader extends ClassLoader {

    /** Packages of the runtime and its libraries: never application classes. */
    private static final List<String> REFUSED_PREFIXES = List.of(
            "org.cx.wire.", "org.cx.server.", "org.cx.producer.", "org.cx.consumer.", "org.cx.cli.",
            "io.netty.", "com.esotericsoftware.", "org.objenesis.", "ch.qos.logback.", "org.slf4j.", "picocli.",
            "com.google.common.", "sun.", "jdk.internal.", "java.lang.invoke.", "java.lang.reflect.");

    private final String codeSource;

    /** @param codeSource names the code in error messages, e.g. "the class path" or a bundle hash */
    public ComputationClassLoader(String codeSource, ClassLoader applicationClasses) {
        super("cx-code-" + codeSource.replace(' ', '-'), applicationClasses);
        this.codeSource = codeSource;
    }

    /** Refuses a class name from the wire that names the runtime, its libraries or JDK internals. */
    public static void checkAllowed(String name) throws ClassNotFoundException {
        String plain = name.startsWith("[") ? name.replaceFirst("^\\[+L", "").replace(";", "") : name;
        for (String prefix : REFUSED_PREFIXES) {
            if (plain.startsWith(prefix)) {
                throw new ClassNotFoundException("class " + name + " is outside the allow-list of application "
                        + "classes (CX runtime and library classes cannot come from the wire)");
            }
        }
    }

    /**
     * Whether every class this loader loads is checked, also when the JVM links application code. True for the
     * class path; a bundle's loader sees only the JDK and the API anyway, and its classes must link against the
     * JDK's internals (string concatenation, lambdas); names from the wire are checked by
     * {@link AllowListClassResolver} either way.
     */
    protected boolean checksLinkage() {
        return true;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (checksLinkage()) {
            checkAllowed(name);
        }
        try {
            return super.loadClass(name, resolve);
        } catch (ClassNotFoundException e) {
            if (e.getMessage() != null && !e.getMessage().equals(name)) {
                throw e; // already says what is wrong (a corrupt class in a bundle)
            }
            throw new ClassNotFoundException("class " + name + " is not in this computation's code ("
                    + codeSource + "): " + missingAdvice(), e);
        }
    }

    /** What to do about a class that is not there. */
    protected String missingAdvice() {
        return "the consumer used a class this process does not have";
    }
}
