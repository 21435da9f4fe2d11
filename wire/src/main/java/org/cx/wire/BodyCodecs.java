package org.cx.wire;

/**
 * The {@link BodyCodec} each computation uses. Today every computation runs from this process's class path, so
 * they share one codec; with code distribution the lookup becomes computation → bundle → codec, and a bundle's
 * codec goes when no computation uses it.
 */
public final class BodyCodecs {
    private final BodyCodec classPath;

    /** @param applicationClasses where application classes come from in this process */
    public BodyCodecs(ClassLoader applicationClasses) {
        this.classPath = new BodyCodec(new ComputationClassLoader("the class path", applicationClasses));
    }

    public BodyCodec forComputation(long computation) {
        return classPath;
    }

    /** The computation is over; nothing to release while all computations share the class path. */
    public void remove(long computation) {
        // Bundles (code distribution) will be reference-counted here.
    }
}
