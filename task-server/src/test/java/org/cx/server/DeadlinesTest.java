package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which limit a running computation has passed, from its times alone. */
class DeadlinesTest {
    private static final long S = 1_000_000_000L;
    private static final int SELF = 1;
    /** Abandoned after 60 s; its tasks may run 100 s in all. */
    private static final UserQuotas QUOTAS = new UserQuotas(10, 1_000, 1 << 20, Duration.ofSeconds(60),
            Duration.ofSeconds(30), Duration.ofSeconds(100));

    /**
     * A computation submitted at 0 s, held by its origin or not, with a timeout (0: none), its consumer gone since
     * (-1: attached), its tasks' time so far, seen at {@code now}: the limit it passed, if any.
     */
    @ParameterizedTest(name = "[{index}] origin {0}, timeout {1} s, gone since {2} s, task time {3} s, at {4} s: {5}")
    @CsvSource({
        "true,  0, -1,   0,  1000, ''",
        "true, 10, -1,   0,     9, ''",
        "true, 10, -1,   0,    11, timeout of 10.0 s",
        "false, 10, -1,  0,    11, ''",                      // only the origin judges the timeout
        "true,  0,  5,   0,    65, ''",                      // gone 60 s: not yet over
        "true,  0,  5,   0,    66, consumer has been gone for 60 s",
        "false, 0,  5,   0,    66, ''",                      // only the origin judges abandonment
        "true,  0, -1, 101,     1, more than 100 s in all",
        "false, 0, -1, 101,     1, more than 100 s in all", // every server judges what it counted
        "true, 10,  0, 101,    70, timeout of 10.0 s",       // the first limit passed is the reason
        "true,  0,  0, 101,    70, consumer has been gone",
    })
    void theFirstLimitPassedIsTheReason(boolean origin, long timeoutS, long goneSinceS, long taskTimeS, long nowS,
                                        String reason) {
        ConsumerHandle attached = () -> 7;
        ComputationState c = new ComputationState(42, 0, goneSinceS < 0 ? attached : null);
        c.origin = origin ? SELF : SELF + 1;
        c.timeoutNanos = timeoutS * S;
        c.abandonedSince = goneSinceS < 0 ? -1 : goneSinceS * S;
        c.completed(taskTimeS * S);
        String why = Deadlines.overdue(c, SELF, QUOTAS, nowS * S);
        if (reason.isEmpty()) {
            assertNull(why);
        } else {
            assertTrue(why != null && why.contains(reason), why);
            assertTrue(why.endsWith("its tasks are dropped"), why);
        }
    }

    @ParameterizedTest(name = "phase {0}")
    @CsvSource({"DONE", "FAILED"})
    void aComputationThatIsOverPassesNoLimit(ComputationState.Phase phase) {
        ComputationState c = new ComputationState(42, 0, null);
        c.origin = SELF;
        c.timeoutNanos = S;
        c.abandonedSince = 0;
        c.completed(1_000 * S);
        c.phase = phase;
        assertNull(Deadlines.overdue(c, SELF, QUOTAS, 10_000 * S));
    }

    @ParameterizedTest(name = "reported {0}")
    @CsvSource({"true, false", "false, true"})
    void theComputationTimeIsReportedOnce(boolean reported, boolean overdue) {
        ComputationState c = new ComputationState(42, 0, null);
        c.origin = SELF + 1;
        c.completed(1_000 * S);
        c.overTimeReported = reported;
        assertEquals(overdue, Deadlines.overdue(c, SELF, QUOTAS, S) != null);
    }
}
