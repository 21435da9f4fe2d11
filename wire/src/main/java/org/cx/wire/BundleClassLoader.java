package org.cx.wire;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;

/**
 * Loads one computation bundle's classes. It sees the JDK and CX's public API ({@code org.cx.api}) and nothing else
 * of this process: two bundles may hold different classes of the same name, and no bundle can reach the runtime.
 */
public final class BundleClassLoader extends ComputationClassLoader {
    /** The JDK, plus {@code org.cx.api} from the runtime (tasks extend its {@code Task}). */
    private static final ClassLoader API_ONLY = new ClassLoader("cx-api-only", ClassLoader.getPlatformClassLoader()) {
        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.startsWith("org.cx.api.")) {
                return Class.forName(name, false, BundleClassLoader.class.getClassLoader());
            }
            throw new ClassNotFoundException(name);
        }
    };

    private final CodeBundle bundle;

    public BundleClassLoader(CodeBundle bundle) {
        super("bundle " + CodeBundle.shortHash(bundle.hash()), API_ONLY);
        this.bundle = bundle;
    }

    public CodeBundle bundle() {
        return bundle;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] bytes;
        try {
            bytes = bundle.entry(name.replace('.', '/') + ".class");
        } catch (CodeBundle.InvalidBundleException e) {
            throw new ClassNotFoundException("class " + name + " cannot be loaded: " + e.getMessage(), e);
        }
        if (bytes == null) {
            throw new ClassNotFoundException(name);
        }
        try {
            return defineClass(name, bytes, 0, bytes.length);
        } catch (ClassFormatError e) {
            throw new ClassNotFoundException("class " + name + " in " + bundle + " is corrupt: " + e.getMessage(), e);
        }
    }

    @Override
    protected boolean checksLinkage() {
        return false;
    }

    @Override
    protected String missingAdvice() {
        return "the application jar does not contain it; package every class the tasks use into the jar";
    }

    @Override
    protected URL findResource(String name) {
        byte[] bytes;
        try {
            bytes = bundle.entry(name);
        } catch (CodeBundle.InvalidBundleException e) {
            return null;
        }
        if (bytes == null) {
            return null;
        }
        try {
            URI uri = new URI("cx-bundle", null, "/" + bundle.hash() + "/" + name, null);
            return URL.of(uri, new URLStreamHandler() {
                @Override
                protected URLConnection openConnection(URL u) {
                    return new URLConnection(u) {
                        @Override
                        public void connect() {
                        }

                        @Override
                        public InputStream getInputStream() {
                            return new ByteArrayInputStream(bytes);
                        }
                    };
                }
            });
        } catch (MalformedURLException | URISyntaxException e) {
            return null;
        }
    }
}
