package org.cx.wire;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link BodyCodec} each computation uses: the class path's, or that of the computation's code bundle. Bundles
 * are kept by hash, each with one class loader and codec however many computations use it, and dropped when the
 * last of those computations is removed. Thread-safe; lookups by computation are lock-free.
 */
public final class BodyCodecs {
    private final BodyCodec classPath;
    private final Map<Long, String> bundleOf = new ConcurrentHashMap<>();
    private final Map<String, Loaded> loaded = new ConcurrentHashMap<>();

    private static final class Loaded {
        final CodeBundle bundle;
        final BodyCodec codec;
        int users;

        Loaded(BundleClassLoader loader) {
            this.bundle = loader.bundle();
            this.codec = new BodyCodec(loader);
        }
    }

    /** @param applicationClasses where classes of computations without a bundle come from in this process */
    public BodyCodecs(ClassLoader applicationClasses) {
        this.classPath = new BodyCodec(new ComputationClassLoader("the class path", applicationClasses));
    }

    /** The codec of {@code computation}: its bundle's once {@linkplain #bind bound}, else the class path's. */
    public BodyCodec forComputation(long computation) {
        String hash = bundleOf.get(computation);
        Loaded l = hash == null ? null : loaded.get(hash);
        return l == null ? classPath : l.codec;
    }

    /** Whether {@code hash} is loaded here (or is the class path). */
    public boolean has(String hash) {
        return hash.equals(CodeBundle.CLASS_PATH) || loaded.containsKey(hash);
    }

    /** The bundle {@code computation} runs from; null for the class path (or an unknown computation). */
    public CodeBundle bundleOf(long computation) {
        String hash = bundleOf.get(computation);
        return hash == null ? null : bundle(hash);
    }

    /** A loaded bundle, or null. */
    public CodeBundle bundle(String hash) {
        Loaded l = loaded.get(hash);
        return l == null ? null : l.bundle;
    }

    /** Keeps {@code bundle} (until a computation that used it is removed and no other uses it). */
    public synchronized void add(CodeBundle bundle) {
        loaded.computeIfAbsent(bundle.hash(), h -> new Loaded(new BundleClassLoader(bundle)));
    }

    /** Runs {@code computation} from {@code bundle}, loading it unless it is loaded already. */
    public synchronized void bind(long computation, CodeBundle bundle) {
        bind(computation, bundle.hash(), () -> new BundleClassLoader(bundle));
    }

    /** Runs {@code computation} from the bundle {@code loader} loaded (a consumer's own application classes). */
    public synchronized void bind(long computation, BundleClassLoader loader) {
        bind(computation, loader.bundle().hash(), () -> loader);
    }

    /** Runs {@code computation} from bundle {@code hash}, which must be loaded. @return false if it is not */
    public synchronized boolean bind(long computation, String hash) {
        if (hash.equals(CodeBundle.CLASS_PATH)) {
            return true;
        }
        if (!loaded.containsKey(hash)) {
            return false;
        }
        bind(computation, hash, null);
        return true;
    }

    private void bind(long computation, String hash, java.util.function.Supplier<BundleClassLoader> loader) {
        if (hash.equals(bundleOf.get(computation))) {
            return;
        }
        remove(computation);
        Loaded l = loaded.computeIfAbsent(hash, h -> new Loaded(loader.get()));
        l.users++;
        bundleOf.put(computation, hash);
    }

    /** The computation is over here: its bundle goes when no other computation uses it. */
    public synchronized void remove(long computation) {
        String hash = bundleOf.remove(computation);
        Loaded l = hash == null ? null : loaded.get(hash);
        if (l != null && --l.users <= 0) {
            loaded.remove(hash);
        }
    }

    /** Drops {@code hash} if no computation runs from it (it was only passed on). */
    public synchronized void dropIfUnused(String hash) {
        Loaded l = loaded.get(hash);
        if (l != null && l.users <= 0) {
            loaded.remove(hash);
        }
    }

    /** Bundles loaded now. */
    public int bundleCount() {
        return loaded.size();
    }
}
