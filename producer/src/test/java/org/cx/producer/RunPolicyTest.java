package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.cx.producer.RunPolicy.Decision;
import org.cx.producer.RunPolicy.Sample;
import org.cx.producer.RunPolicy.State;
import org.cx.producer.Thermostat.Cap;
import org.cx.producer.Thermostat.Memory;
import org.junit.jupiter.api.Test;

class RunPolicyTest {
    private static final long S = 1_000_000_000L;
    private static final Cap HALF = new Cap(0.5, Memory.UNLIMITED);
    private static final Cap NONE = new Cap(0, Memory.UNLIMITED);

    private static RunPolicy policy(RunWhen when) {
        return new RunPolicy(when, Duration.ofMinutes(5), 0.3, Duration.ofMinutes(1));
    }

    private static Sample input(long secondsAgo, double ownerCpu) {
        return new Sample(Duration.ofSeconds(secondsAgo), ownerCpu);
    }

    @Test
    void eachRuleDecidesFromTheOwnersInputTheirProcessesAndTheCap() {
        // when, cap, sample, state
        Object[][] cases = {
            {RunWhen.ALWAYS, Cap.NONE, input(1, 0.9), State.RUNNING},     // the owner does not matter
            {RunWhen.ALWAYS, HALF, Sample.AWAY, State.CAPPED},
            {RunWhen.ALWAYS, NONE, Sample.AWAY, State.PAUSED},
            {RunWhen.IDLE, Cap.NONE, input(299, 0), State.PAUSED},        // input under 5 minutes ago
            {RunWhen.IDLE, Cap.NONE, input(300, 0), State.RUNNING},
            {RunWhen.IDLE, HALF, input(600, 0.1), State.CAPPED},
            {RunWhen.IDLE, Cap.NONE, input(600, 0.5), State.PAUSED},      // the owner's programs are busy
            {RunWhen.IDLE, Cap.NONE, new Sample(null, 0.1), State.RUNNING}, // no desktop: processes only
            {RunWhen.IDLE, Cap.NONE, new Sample(null, 0.4), State.PAUSED},
            {RunWhen.SCHEDULE, NONE, Sample.AWAY, State.PAUSED},
            {RunWhen.SCHEDULE, Cap.NONE, input(1, 0.9), State.RUNNING},
        };
        for (Object[] c : cases) {
            Decision d = policy((RunWhen) c[0]).decide(0, (Cap) c[1], (Sample) c[2]);
            assertEquals(c[3], d.state(), c[0] + " " + c[1] + " " + c[2] + ": " + d.why());
        }
    }

    @Test
    void aPauseThatOutlastsItsLimitGivesTasksBackOnce() {
        RunPolicy p = policy(RunWhen.IDLE);
        assertFalse(p.decide(0, Cap.NONE, input(1, 0)).giveBack());
        assertFalse(p.decide(59 * S, Cap.NONE, input(1, 0)).giveBack());
        assertTrue(p.decide(60 * S, Cap.NONE, input(1, 0)).giveBack());
        assertFalse(p.decide(61 * S, Cap.NONE, input(1, 0)).giveBack(), "once per pause");
        assertEquals(State.RUNNING, p.decide(700 * S, Cap.NONE, input(400, 0)).state());
        assertFalse(p.decide(701 * S, Cap.NONE, input(1, 0)).giveBack(), "a new pause starts its own clock");
        assertTrue(p.decide(761 * S, Cap.NONE, input(1, 0)).giveBack());
    }

    @Test
    void thePauseSaysWhy() {
        assertTrue(policy(RunWhen.IDLE).decide(0, Cap.NONE, input(3, 0)).why().contains("input 3 s ago"));
        assertTrue(policy(RunWhen.SCHEDULE).decide(0, NONE, Sample.AWAY).why().contains("outside the schedule"));
    }
}
