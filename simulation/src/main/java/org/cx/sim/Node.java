package org.cx.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * A simulated process: it runs the events addressed to it one at a time. A crashed node runs nothing more; a frozen
 * one (SIGSTOP) keeps what arrives and runs it, in order, when it is resumed.
 */
abstract class Node {
    final World world;
    final String name;
    private boolean crashed;
    private boolean frozen;
    /** Where it holds values that travel by reference, or null if they all travel inline. */
    private final org.cx.wire.ValueStore values;
    private final List<Runnable> backlog = new ArrayList<>();
    /** Connections this process holds, closed by the kernel when it crashes. */
    final List<Pipe.End> ends = new ArrayList<>();

    Node(World world, String name) {
        this.world = world;
        this.name = name;
        this.values = world.newValueStore();
    }

    /** Where it holds values that travel by reference, or null if they all travel inline. */
    public org.cx.wire.ValueStore values() {
        return values;
    }

    boolean crashed() {
        return crashed;
    }

    boolean frozen() {
        return frozen;
    }

    /** Runs {@code work} as this process, now or when it is resumed; never if it crashed. */
    final void run(Runnable work) {
        if (crashed) {
            return;
        }
        if (frozen) {
            backlog.add(work);
            return;
        }
        work.run();
    }

    /** Stops for good: every connection it held is reset, as the kernel does for a process that died. */
    void crash() {
        if (crashed) {
            return;
        }
        crashed = true;
        backlog.clear();
        for (Pipe.End end : List.copyOf(ends)) {
            end.reset();
        }
        world.trace(name + " crashed");
    }

    void freeze() {
        frozen = true;
        world.trace(name + " frozen");
    }

    /** Resumes a frozen process: what arrived meanwhile runs now, in order. */
    void resume() {
        if (!frozen || crashed) {
            return;
        }
        frozen = false;
        world.trace(name + " resumed");
        List<Runnable> waiting = List.copyOf(backlog);
        backlog.clear();
        for (Runnable r : waiting) {
            world.at(world.now(), this, r);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
