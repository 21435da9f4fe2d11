package org.cx.wire;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link BodyCodec} each computation uses: the class path's, or that of the computation's code bundle. Bundles
 * are kept by hash, each with one class loader and codec however many computations use it. When the last of those
 * computations is removed, the class loader goes but the bundle's bytes stay, least recently used first out, up to
 * a bound ({@link #KEEP_UNUSED_BYTES} by default): the next computation from the same bundle is not sent it again.
 * A computation may also read a shared data bundle, held the same way. Thread-safe; lookups by computation are
 * lock-free.
 */
public final class BodyCodecs {
    /** Bytes of bundles that no computation uses which a process keeps for the next computation that will. */
    public static final long KEEP_UNUSED_BYTES = 512L << 20;

    private final BodyCodec classPath;
    private final ValueStore values;
    private final long keepUnusedBytes;
    private final Map<Long, String> bundleOf = new ConcurrentHashMap<>();
    /** Computation → the hash of the shared data bundle its tasks read, for those that have one. */
    private final Map<Long, String> dataOf = new ConcurrentHashMap<>();
    private final Map<String, Loaded> loaded = new ConcurrentHashMap<>();
    /** Bundles no computation uses, least recently used first; guarded by this. */
    private final java.util.LinkedHashMap<String, CodeBundle> unused = new java.util.LinkedHashMap<>(16, 0.75f, true);
    private long unusedBytes;

    private static final class Loaded {
        final CodeBundle bundle;
        final BodyCodec codec;
        int users;

        Loaded(BundleClassLoader loader, ValueStore values) {
            this.bundle = loader.bundle();
            this.codec = new BodyCodec(loader, values);
        }
    }

    /** @param applicationClasses where classes of computations without a bundle come from in this process */
    public BodyCodecs(ClassLoader applicationClasses) {
        this(applicationClasses, KEEP_UNUSED_BYTES);
    }

    /** @param keepUnusedBytes bytes of bundles no computation uses that are kept for the next that will */
    public BodyCodecs(ClassLoader applicationClasses, long keepUnusedBytes) {
        this(applicationClasses, keepUnusedBytes, null);
    }

    /** @param values where this process keeps large values (null: every value travels inline) */
    public BodyCodecs(ClassLoader applicationClasses, long keepUnusedBytes, ValueStore values) {
        this.values = values;
        this.classPath = new BodyCodec(new ComputationClassLoader("the class path", applicationClasses), values);
        this.keepUnusedBytes = keepUnusedBytes;
    }

    /** Where this process keeps large values, or null. */
    public ValueStore values() {
        return values;
    }

    /** The codec of {@code computation}: its bundle's once {@linkplain #bind bound}, else the class path's. */
    public BodyCodec forComputation(long computation) {
        String hash = bundleOf.get(computation);
        Loaded l = hash == null ? null : loaded.get(hash);
        return l == null ? classPath : l.codec;
    }

    /** Whether {@code hash} is here, in use or kept (or is the class path). */
    public boolean has(String hash) {
        if (hash.equals(CodeBundle.CLASS_PATH) || loaded.containsKey(hash)) {
            return true;
        }
        synchronized (this) {
            return unused.containsKey(hash);
        }
    }

    /** The bundle {@code computation} runs from; null for the class path (or an unknown computation). */
    public CodeBundle bundleOf(long computation) {
        String hash = bundleOf.get(computation);
        return hash == null ? null : bundle(hash);
    }

    /** A bundle held here, in use or kept, or null. */
    public CodeBundle bundle(String hash) {
        Loaded l = loaded.get(hash);
        if (l != null) {
            return l.bundle;
        }
        synchronized (this) {
            return unused.get(hash);
        }
    }

    /** Holds {@code bundle}: loaded until a computation that used it is removed and no other uses it, then kept. */
    public synchronized void add(CodeBundle bundle) {
        load(bundle.hash(), () -> new BundleClassLoader(bundle));
    }

    /** The loaded {@code hash}, loading it with {@code loader} (and no longer keeping it as unused) if it is not. */
    private Loaded load(String hash, java.util.function.Supplier<BundleClassLoader> loader) {
        Loaded l = loaded.get(hash);
        if (l == null) {
            CodeBundle kept = unused.remove(hash);
            if (kept != null) {
                unusedBytes -= kept.size();
            }
            l = new Loaded(loader.get(), values);
            loaded.put(hash, l);
        }
        return l;
    }

    /** Runs {@code computation} from {@code bundle}, loading it unless it is loaded already. */
    public synchronized void bind(long computation, CodeBundle bundle) {
        bind(computation, bundle.hash(), () -> new BundleClassLoader(bundle));
    }

    /** Runs {@code computation} from the bundle {@code loader} loaded (a consumer's own application classes). */
    public synchronized void bind(long computation, BundleClassLoader loader) {
        bind(computation, loader.bundle().hash(), () -> loader);
    }

    /** Runs {@code computation} from bundle {@code hash}, which must be held here. @return false if it is not */
    public synchronized boolean bind(long computation, String hash) {
        if (hash.equals(CodeBundle.CLASS_PATH)) {
            return true;
        }
        CodeBundle kept = unused.get(hash);
        if (!loaded.containsKey(hash) && kept == null) {
            return false;
        }
        bind(computation, hash, () -> new BundleClassLoader(kept));
        return true;
    }

    private void bind(long computation, String hash, java.util.function.Supplier<BundleClassLoader> loader) {
        if (hash.equals(bundleOf.get(computation))) {
            return;
        }
        release(bundleOf.remove(computation));
        load(hash, loader).users++;
        bundleOf.put(computation, hash);
    }

    /**
     * {@code computation}'s tasks read shared data bundle {@code hash} (empty: none), which must be held here; it is
     * held while they do. @return false if it is not held here
     */
    public synchronized boolean bindData(long computation, String hash) {
        if (hash.isEmpty() || hash.equals(dataOf.get(computation))) {
            return true;
        }
        CodeBundle kept = unused.get(hash);
        if (!loaded.containsKey(hash) && kept == null) {
            return false;
        }
        release(dataOf.remove(computation));
        load(hash, () -> new BundleClassLoader(kept)).users++;
        dataOf.put(computation, hash);
        return true;
    }

    /** The shared data bundle {@code computation}'s tasks read; null for none (or an unknown computation). */
    public CodeBundle dataOf(long computation) {
        String hash = dataOf.get(computation);
        return hash == null ? null : bundle(hash);
    }

    /** The computation is over here: its bundles' class loaders go when no other computation uses them. */
    public synchronized void remove(long computation) {
        release(bundleOf.remove(computation));
        release(dataOf.remove(computation));
    }

    private void release(String hash) {
        Loaded l = hash == null ? null : loaded.get(hash);
        if (l != null && --l.users <= 0) {
            keepUnused(l);
        }
    }

    /** Unloads {@code hash} if no computation runs from it (it was only passed on, or its upload went unused). */
    public synchronized void unloadIfUnused(String hash) {
        Loaded l = loaded.get(hash);
        if (l != null && l.users <= 0) {
            keepUnused(l);
        }
    }

    private void keepUnused(Loaded l) {
        loaded.remove(l.bundle.hash());
        unused.put(l.bundle.hash(), l.bundle);
        unusedBytes += l.bundle.size();
        for (var it = unused.values().iterator(); unusedBytes > keepUnusedBytes && it.hasNext(); ) {
            unusedBytes -= it.next().size();
            it.remove();
        }
    }

    /** Bundles loaded now (in use by a computation, or just arrived). */
    public int bundleCount() {
        return loaded.size();
    }

    /** Bundles kept here that no computation uses. */
    public synchronized int unusedCount() {
        return unused.size();
    }
}
