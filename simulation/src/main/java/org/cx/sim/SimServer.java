package org.cx.sim;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.cx.api.TaskId;
import org.cx.server.NetworkConfig;
import org.cx.server.PeerLink;
import org.cx.server.ServerConfig;
import org.cx.server.ServerCore;
import org.cx.wire.WireConfig;

/**
 * A task server in the simulation: the real {@link ServerCore}, on the world's clock, its one alarm an event, its
 * links to other servers {@link SimLink}s. A server the network evicts stops, as {@code cx server} does.
 */
final class SimServer extends Node implements ServerCore.Environment {
    final String address;
    final ServerCore core;
    private final Audit audit;
    /** Computation ids drawn from the seed, so that a replay names them alike. */
    private final java.util.SplittableRandom ids;
    private boolean started;
    /** When it crashed or stopped (evicted), if it did. */
    long stoppedAt = Long.MAX_VALUE;
    /** When it last resumed from a freeze, if it was frozen. */
    long resumedAt = Long.MIN_VALUE;

    /**
     * @param join   the address of a member to join, or null to found the network
     * @param trails a directory for the server's commit log and audit trail ({@code NAME.log}, {@code NAME.log.trail}),
     *               or null for none
     */
    SimServer(World world, String name, String join, long seed, Audit audit, java.nio.file.Path trails) {
        super(world, name);
        this.address = name + ":7000";
        this.audit = audit;
        ServerConfig config = new ServerConfig(name, null, 7000, name, Duration.ofMinutes(10),
                WireConfig.maxFrameBytes(), false, null, NetworkConfig.defaults().withJoin(join),
                trails == null ? null : trails.resolve(name + ".log"), "", false,
                org.cx.server.ConnectionGuards.defaults(), org.cx.server.UserQuotas.defaults(), true);
        this.ids = new java.util.SplittableRandom(seed);
        this.core = new ServerCore(config, address, this);
    }

    /**
     * As above; with {@code contention}, a computation counts as large beside another once it has used 1 ms more of
     * each worker instead of a second, so that the simulation's small computations exercise prefetch giving way to a
     * favoured one (revokes of the other's cached copies) as large ones do.
     */
    SimServer(World world, String name, String join, long seed, Audit audit, java.nio.file.Path trails,
              boolean contention) {
        this(world, name, join, seed, audit, trails);
        if (contention) {
            core.largeUsePerWorker(1_000_000);
        }
    }

    void start() {
        world.listen(address, this);
        run(core::start);
        started = true;
    }

    /** Started, and neither crashed nor evicted. */
    boolean serving() {
        return started && !crashed();
    }

    /** A connection to this server: its first message goes to the server's handshake. */
    Pipe.Receiver accept(Pipe.End end) {
        ServerCore.Inbound inbound = core.accept(end);
        return new Pipe.Receiver() {
            @Override
            public void receive(org.cx.wire.Message message) {
                inbound.receive(message);
            }

            @Override
            public void readComplete() {
                inbound.readComplete();
            }

            @Override
            public void closed() {
                inbound.closed();
            }
        };
    }

    @Override
    void crash() {
        world.stopListening(address);
        stoppedAt = Math.min(stoppedAt, world.now());
        super.crash();
    }

    @Override
    void resume() {
        if (frozen() && !crashed()) {
            resumedAt = world.now();
        }
        super.resume();
    }

    @Override
    public long nanoTime() {
        return world.now();
    }

    @Override
    public void armAlarm(long dueNanos) {
        world.at(dueNanos, this, () -> core.alarm(dueNanos));
    }

    @Override
    public RandomGenerator computationIds() {
        return ids;
    }

    @Override
    public PeerLink.Opener links() {
        return (id, target, owner) -> new SimLink(this, id, target, owner);
    }

    @Override
    public void runAside(Runnable work) {
        world.after(0, this, work);
    }

    @Override
    public void runHere(Runnable work) {
        world.after(0, this, work);
    }

    @Override
    public void evicted(String reason) {
        world.trace(name + " evicted: " + reason);
        world.after(0, null, this::crash); // cx server exits
    }

    @Override
    public boolean audits() {
        return true;
    }

    @Override
    public void applied(TaskId task) {
        audit.applied(task);
    }

    @Override
    public void committed(TaskId task, long appliedNanos) {
        audit.committed(this, core.id(), task, appliedNanos, world.now());
    }

    @Override
    public void adopted(int failed) {
        world.trace(name + " took over the tasks of server " + failed);
        audit.adopted(failed, world.now());
    }
}
