package org.cx.producer;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What the owner of a producer's machine decides: when task code may run, the thermostat's caps, and where the
 * producer reports what it does ({@link Governor}).
 *
 * @param runWhen       always, while the owner is away, or on the thermostat's schedule
 * @param thermostat    the thermostat file, re-read when it changes; null: no caps
 * @param idleAfter     input-free time after which the owner counts as away ({@link RunWhen#IDLE})
 * @param ownerCpu      share of the machine above which the owner's own programs count as the owner being there
 * @param giveBackAfter a pause longer than this gives the producer's tasks back to its server
 * @param capMode       how a CPU cap is kept: fewer workers, or duty-cycling them all
 * @param stateDir      where the producer writes its status and its log of offered capacity; null: nowhere
 */
public record OwnerSettings(RunWhen runWhen, Path thermostat, Duration idleAfter, double ownerCpu,
                            Duration giveBackAfter, CpuCapMode capMode, Path stateDir) {

    /** Always run, no caps, no reports: a producer of benchmarks and tests. */
    public static final OwnerSettings NONE = new OwnerSettings(RunWhen.ALWAYS, null, Duration.ofMinutes(5), 0.25,
            Duration.ofMinutes(1), CpuCapMode.WORKERS, null);

    public OwnerSettings {
        if (!(ownerCpu > 0 && ownerCpu <= 1)) {
            throw new IllegalArgumentException("the owner's CPU threshold is a share in (0, 1], got " + ownerCpu);
        }
        if (idleAfter.isNegative() || giveBackAfter.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
    }

    /** Whether anything here needs a {@link Governor}. */
    boolean governed() {
        return runWhen != RunWhen.ALWAYS || thermostat != null || stateDir != null;
    }
}
