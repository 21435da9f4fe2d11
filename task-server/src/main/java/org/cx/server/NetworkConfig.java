package org.cx.server;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * How a task server takes part in a production network.
 *
 * @param join        {@code host:port} of any member to join, or null to found a network (a lone server is a
 *                    network of one)
 * @param branching   the fat tree's branching factor B (a founder's choice; joiners take the network's)
 * @param heartbeat   how often members tell the primary root they are alive
 * @param failTimeout silence after which a member is declared failed (a broken connection counts at once)
 * @param diffusion   how often a server tells its neighbours its load
 * @param elsewhere   other members to ask when {@code join} does not let this server in (it died, say): the servers
 *                    registered at a lookup service; read on the event loop, so it must answer at once
 */
public record NetworkConfig(String join, int branching, Duration heartbeat, Duration failTimeout,
                            Duration diffusion, Supplier<List<String>> elsewhere) {

    public NetworkConfig {
        if (branching < 2) {
            throw new IllegalArgumentException("branching factor must be at least 2, got " + branching);
        }
        if (heartbeat.isNegative() || heartbeat.isZero() || failTimeout.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("the failure timeout (" + failTimeout.toMillis()
                    + " ms) must be at least two heartbeats (" + heartbeat.toMillis() + " ms each)");
        }
        if (diffusion.isNegative() || diffusion.isZero()) {
            throw new IllegalArgumentException("diffusion period must be positive, got " + diffusion);
        }
    }

    /** Found a network; B = 2; heartbeat 100 ms; declared failed after 1 s of silence; diffusion every 20 ms. */
    public static NetworkConfig defaults() {
        return new NetworkConfig(null, 2, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofMillis(20),
                List::of);
    }

    public NetworkConfig withJoin(String address) {
        return new NetworkConfig(address, branching, heartbeat, failTimeout, diffusion, elsewhere);
    }

    public NetworkConfig withBranching(int b) {
        return new NetworkConfig(join, b, heartbeat, failTimeout, diffusion, elsewhere);
    }

    public NetworkConfig withFailTimeout(Duration timeout) {
        return new NetworkConfig(join, branching, heartbeat, timeout, diffusion, elsewhere);
    }

    public NetworkConfig withElsewhere(Supplier<List<String>> members) {
        return new NetworkConfig(join, branching, heartbeat, failTimeout, diffusion, members);
    }
}
