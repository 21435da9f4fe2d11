package org.cx.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Resolves class names read from application bytes through one {@link ComputationClassLoader} and nothing else.
 * Kryo's default resolver falls back to Kryo's own class loader when the given one refuses a class, which would
 * let a peer name any class of the runtime; here a refusal is final. Of the JDK's classes only plain values come
 * from the wire ({@link #JDK_VALUES}, and arrays of them): no comparator, URL, proxy, lambda or class whose decoding
 * runs JDK code chosen by the sender. The application's own classes (from its bundle or the class path, outside
 * the runtime) are its code, which runs anyway.
 */
final class AllowListClassResolver extends DefaultClassResolver {
    /** The JDK classes a task's fields, inputs and results may hold. */
    static final Set<String> JDK_VALUES = Set.of(
            "java.lang.Object", "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short",
            "java.lang.Character", "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double",
            "java.math.BigInteger", "java.math.BigDecimal",
            "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashMap",
            "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet",
            "java.util.TreeSet", "java.util.PriorityQueue", "java.util.BitSet", "java.util.UUID",
            "java.util.EnumMap", "java.util.EnumSet", "java.util.RegularEnumSet", "java.util.JumboEnumSet",
            "java.util.Arrays$ArrayList", "java.util.Collections$EmptyList", "java.util.Collections$EmptyMap",
            "java.util.Collections$EmptySet", "java.util.Collections$SingletonList",
            "java.util.Collections$SingletonMap", "java.util.Collections$SingletonSet",
            "java.util.ImmutableCollections$List12", "java.util.ImmutableCollections$ListN",
            "java.util.ImmutableCollections$Set12", "java.util.ImmutableCollections$SetN",
            "java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN",
            "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.CopyOnWriteArrayList",
            "java.util.concurrent.ConcurrentLinkedQueue", "java.util.concurrent.atomic.AtomicInteger",
            "java.util.concurrent.atomic.AtomicLong",
            "java.time.Instant", "java.time.Duration", "java.time.LocalDate", "java.time.LocalTime",
            "java.time.LocalDateTime", "java.time.ZoneOffset", "java.time.OffsetDateTime", "java.time.Period");

    private final ClassLoader loader;
    private final Map<String, Class<?>> resolved = new HashMap<>();

    AllowListClassResolver(ClassLoader loader) {
        this.loader = loader;
    }

    /** Refuses, on the side that writes it, a class that the reading side would refuse or could not name. */
    @Override
    @SuppressWarnings("rawtypes")
    public Registration writeClass(Output output, Class type) {
        if (type != null) {
            Class<?> base = type;
            while (base.isArray()) {
                base = base.getComponentType();
            }
            if (base.isHidden() || base.isSynthetic()) {
                throw new KryoException(base.getName() + " is a lambda or another class without a name that can be "
                        + "loaded elsewhere: use a named class (e.g. a static nested class implementing the "
                        + "interface) for what tasks hold and send");
            }
            checkJdkValue(type.getName(), type);
        }
        return super.writeClass(output, type);
    }

    @Override
    @SuppressWarnings("rawtypes")
    protected Class getTypeByName(String className) {
        Class<?> type = resolved.get(className);
        if (type == null) {
            try {
                ComputationClassLoader.checkAllowed(className);
                type = Class.forName(className, false, loader);
            } catch (ClassNotFoundException e) {
                throw new KryoException(e.getMessage(), e);
            }
            checkJdkValue(className, type);
            resolved.put(className, type);
        }
        return type;
    }

    /** Refuses a JDK class outside {@link #JDK_VALUES}; application classes and primitives pass. */
    private static void checkJdkValue(String className, Class<?> type) {
        Class<?> base = type;
        while (base.isArray()) {
            base = base.getComponentType();
        }
        if (base.isPrimitive()) {
            return;
        }
        ClassLoader loader = base.getClassLoader();
        boolean jdk = loader == null || loader == ClassLoader.getPlatformClassLoader();
        if (jdk && !JDK_VALUES.contains(base.getName())) {
            throw new KryoException("class " + className + " is a JDK class outside the allow-list of plain values "
                    + "that may come from the wire (strings, numbers, collections, java.time values; no comparators, "
                    + "URLs, proxies or lambdas): use an application class or one of those");
        }
    }
}
