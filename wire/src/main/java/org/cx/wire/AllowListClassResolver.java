package org.cx.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import java.util.HashMap;
import java.util.Map;

/**
 * Resolves class names read from application bytes through one {@link ComputationClassLoader} and nothing else.
 * Kryo's default resolver falls back to Kryo's own class loader when the given one refuses a class, which would
 * let a peer name any class of the runtime; here a refusal is final.
 */
final class AllowListClassResolver extends DefaultClassResolver {
    private final ClassLoader loader;
    private final Map<String, Class<?>> resolved = new HashMap<>();

    AllowListClassResolver(ClassLoader loader) {
        this.loader = loader;
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
            resolved.put(className, type);
        }
        return type;
    }
}
