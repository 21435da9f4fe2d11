package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cx.testing.Await;
import org.junit.jupiter.api.Test;

class MachineIdleTest {
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    private static String session(String type, String idle, Instant since) {
        long micros = since == null ? 0 : since.getEpochSecond() * 1_000_000 + since.getNano() / 1000;
        return "Type=" + type + "\nIdleHint=" + idle + "\nIdleSinceHint=" + micros + "\n";
    }

    @Test
    void aGraphicalSessionsIdleHintGivesTheTimeSinceInput() {
        assertEquals(Duration.ofMinutes(7), MachineIdle.sessionInput(session("x11", "yes", NOW.minusSeconds(420)),
                NOW));
        assertEquals(Duration.ZERO, MachineIdle.sessionInput(session("wayland", "no", NOW.minusSeconds(420)), NOW),
                "not idle: in use now");
        assertNull(MachineIdle.sessionInput(session("tty", "yes", NOW.minusSeconds(420)), NOW),
                "a text session is no desktop");
        assertEquals(Duration.ZERO, MachineIdle.sessionInput(session("x11", "yes", NOW.plusSeconds(5)), NOW),
                "a hint from the future is now");
    }

    @Test
    void theMostRecentInputOfAllGraphicalSessionsCounts() throws IOException {
        Instant now = Instant.now();
        Map<String, String> sessions = Map.of("1", session("x11", "yes", now.minusSeconds(3600)),
                "2", session("wayland", "yes", now.minusSeconds(600)), "3", session("tty", "no", now));
        Duration d = MachineIdle.logindInput("[{\"session\":\"1\"},{\"session\":\"2\"},{\"session\":\"3\"}]",
                sessions::get);
        assertTrue(d.toSeconds() >= 599 && d.toSeconds() <= 660, String.valueOf(d));
        assertNull(MachineIdle.logindInput("[]", sessions::get), "no session: no desktop");
    }

    @Test
    void busyTimeIsTheProcessorsTimeLessTheirIdleTime() {
        assertEquals(15_500_000_000L, MachineIdle.busyNanos("100.00 184.50\n", 2));
    }

    /** A thread of this JVM that spins is the owner's program, as the producer is told nothing of it. */
    @Test
    void theOwnersBusyProgramsAreSeen() throws Exception {
        MachineIdle idle = new MachineIdle(() -> 0);
        idle.sample(System.nanoTime());
        AtomicBoolean spin = new AtomicBoolean(true);
        int processors = Runtime.getRuntime().availableProcessors();
        Thread[] spinners = new Thread[processors];
        for (int i = 0; i < processors; i++) {
            spinners[i] = new Thread(() -> {
                long x = 0;
                while (spin.get()) {
                    x += System.nanoTime() & 1;
                }
                if (x == 42) {
                    System.out.print("");
                }
            });
            spinners[i].start();
        }
        try {
            Await.until("the spinning to be seen", Duration.ofSeconds(30),
                    () -> idle.sample(System.nanoTime()).ownerCpu() > 0.5);
        } finally {
            spin.set(false);
            for (Thread t : spinners) {
                t.join();
            }
        }
    }
}
