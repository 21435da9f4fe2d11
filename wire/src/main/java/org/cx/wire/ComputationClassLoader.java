package org.cx.wire;

import java.util.List;

/**
 * The only way application classes are resolved from the wire: one loader per computation. It resolves the
 * application's classes and the JDK, and refuses the CX runtime and its libraries, so bytes from a peer can never
 * instantiate a server, transport or codec class.
 *
 * <p>Today the application classes come from the process's class path. The code-distribution issue replaces the
 * parent with the computation's own content-addressed bundle; the refusal rules stay.
 */
public final class ComputationClassLoader extends ClassLoader {

    /** Packages of the runtime and its libraries: never application classes. */
    private static final List<String> REFUSED_PREFIXES = List.of(
            "org.cx.wire.", "org.cx.server.", "org.cx.producer.", "org.cx.consumer.", "org.cx.cli.",
            "io.netty.", "com.esotericsoftware.", "org.objenesis.", "ch.qos.logback.", "org.slf4j.", "picocli.",
            "com.google.common.", "sun.", "jdk.internal.", "java.lang.invoke.", "java.lang.reflect.");

    private final long computation;

    public ComputationClassLoader(long computation, ClassLoader applicationClasses) {
        super("cx-computation-" + Long.toHexString(computation), applicationClasses);
        this.computation = computation;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        String plain = name.startsWith("[") ? name.replaceFirst("^\\[+L", "").replace(";", "") : name;
        for (String prefix : REFUSED_PREFIXES) {
            if (plain.startsWith(prefix)) {
                throw new ClassNotFoundException("class " + name + " is outside the allow-list of computation "
                        + Long.toHexString(computation) + " (runtime classes cannot come from the wire)");
            }
        }
        try {
            return super.loadClass(name, resolve);
        } catch (ClassNotFoundException e) {
            throw new ClassNotFoundException("class " + name + " is not among the classes of computation "
                    + Long.toHexString(computation), e);
        }
    }
}
