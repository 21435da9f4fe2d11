package org.cx.wire;

import java.util.concurrent.ConcurrentHashMap;

/** One {@link BodyCodec} per live computation, created on first use and dropped when the computation ends. */
public final class BodyCodecs {
    private final ClassLoader applicationClasses;
    private final ConcurrentHashMap<Long, BodyCodec> codecs = new ConcurrentHashMap<>();

    /** @param applicationClasses where application classes come from in this process */
    public BodyCodecs(ClassLoader applicationClasses) {
        this.applicationClasses = applicationClasses;
    }

    public BodyCodec forComputation(long computation) {
        return codecs.computeIfAbsent(computation,
                id -> new BodyCodec(new ComputationClassLoader(id, applicationClasses)));
    }

    public void remove(long computation) {
        codecs.remove(computation);
    }

    public int size() {
        return codecs.size();
    }
}
