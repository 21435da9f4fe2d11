package org.cx.producer;

import java.time.Duration;

/**
 * Whether a producer's task code may run now: the screensaver rule (the owner away: no keyboard or mouse input for a
 * while and the owner's own processes quiet) or a schedule, and the thermostat's cap. Pure and stateful: fed the time
 * and what the idle sources saw, it says what to do, with the pause's length for giving tasks back.
 */
final class RunPolicy {

    /** What the producer does now. */
    enum State {
        /** Task code runs without a cap. */
        RUNNING,
        /** Task code runs within a CPU cap below the machine. */
        CAPPED,
        /** Task code does not run: running tasks are frozen, none is taken. */
        PAUSED,
        /** The producer has stopped (said only in its last status, never decided here). */
        STOPPED
    }

    /**
     * What the idle sources saw.
     *
     * @param sinceInput time since the owner's last keyboard or mouse input; null if there is no desktop session
     * @param ownerCpu   share of the machine's processors the owner's processes (all but task code) used lately
     */
    record Sample(Duration sinceInput, double ownerCpu) {
        static final Sample AWAY = new Sample(null, 0);
    }

    /**
     * The decision.
     *
     * @param state    what to do
     * @param why      said to the owner ({@code cx producer status}) and logged
     * @param giveBack give back every task held: a pause has outlasted its limit (said once per pause)
     */
    record Decision(State state, String why, boolean giveBack) {
    }

    private final RunWhen when;
    private final Duration idleAfter;
    private final double ownerCpuLimit;
    private final Duration giveBackAfter;
    private long pausedSince = -1;
    private boolean gaveBack;

    /**
     * @param idleAfter     input-free time after which the owner counts as away
     * @param ownerCpuLimit share of the machine above which the owner's processes count as the owner being there
     * @param giveBackAfter a pause longer than this gives the producer's tasks back to its server
     */
    RunPolicy(RunWhen when, Duration idleAfter, double ownerCpuLimit, Duration giveBackAfter) {
        this.when = when;
        this.idleAfter = idleAfter;
        this.ownerCpuLimit = ownerCpuLimit;
        this.giveBackAfter = giveBackAfter;
    }

    RunWhen when() {
        return when;
    }

    /** What to do at {@code nowNanos} under {@code cap}, the idle sources having seen {@code sample}. */
    Decision decide(long nowNanos, Thermostat.Cap cap, Sample sample) {
        String pause = pauseReason(cap, sample);
        if (pause == null) {
            pausedSince = -1;
            gaveBack = false;
            return cap.cpu() >= 1 ? new Decision(State.RUNNING, "running", false)
                    : new Decision(State.CAPPED, "running within " + cap, false);
        }
        if (pausedSince < 0) {
            pausedSince = nowNanos;
        }
        boolean giveBack = !gaveBack && nowNanos - pausedSince >= giveBackAfter.toNanos();
        gaveBack |= giveBack;
        return new Decision(State.PAUSED, pause, giveBack);
    }

    private String pauseReason(Thermostat.Cap cap, Sample sample) {
        if (when == RunWhen.IDLE) {
            if (sample.sinceInput() != null && sample.sinceInput().compareTo(idleAfter) < 0) {
                return "the owner is using this machine (input " + sample.sinceInput().toSeconds() + " s ago)";
            }
            if (sample.ownerCpu() > ownerCpuLimit) {
                return "the owner's programs use " + Thermostat.percent(Math.round(sample.ownerCpu() * 100) / 100.0)
                        + " of the processors";
            }
        }
        if (cap.cpu() <= 0) {
            return when == RunWhen.SCHEDULE ? "outside the schedule" : "the thermostat allows no CPU now";
        }
        return null;
    }
}
