package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.EnumSet;
import java.util.List;
import org.cx.producer.Thermostat.Interval;
import org.cx.producer.Thermostat.Memory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThermostatTest {
    /** Mondays to Fridays 09:00-17:00 a quarter of the processors and 2 GiB; nights 22:00-06:00 all of them. */
    private static final Thermostat OFFICE = new Thermostat(0.5, Memory.parse("50%"), List.of(
            new Interval(Thermostat.parseDays("mon-fri"), LocalTime.of(9, 0), LocalTime.of(17, 0), 0.25,
                    Memory.parse("2G")),
            new Interval(Thermostat.parseDays("daily"), LocalTime.of(22, 0), LocalTime.of(6, 0), 1.0, null)));

    @Test
    void theCapInForceFollowsTheWeek() {
        // 2026-11-23 is a Monday.
        Object[][] cases = {
            {"2026-11-23T08:59", 0.5, "50%"},       // before the day's interval
            {"2026-11-23T09:00", 0.25, "2G"},       // from is in
            {"2026-11-23T16:59", 0.25, "2G"},
            {"2026-11-23T17:00", 0.5, "50%"},       // to is out
            {"2026-11-28T12:00", 0.5, "50%"},       // Saturday: no day interval
            {"2026-11-23T23:30", 1.0, "50%"},       // the night interval keeps the memory outside
            {"2026-11-29T05:59", 1.0, "50%"},       // Sunday early: the night that began on Saturday
            {"2026-11-23T06:00", 0.5, "50%"},
        };
        for (Object[] c : cases) {
            Thermostat.Cap cap = OFFICE.capAt(LocalDateTime.parse((String) c[0]));
            assertEquals((double) c[1], cap.cpu(), 1e-9, (String) c[0]);
            assertEquals(c[2], cap.memory().toString(), (String) c[0]);
        }
    }

    @Test
    void theIntervalListedLastWinsWhereTheyOverlap() {
        Thermostat t = OFFICE.with(new Interval(EnumSet.of(DayOfWeek.MONDAY), LocalTime.of(12, 0),
                LocalTime.of(13, 0), 0.75, null));
        assertEquals(0.75, t.capAt(LocalDateTime.parse("2026-11-23T12:30")).cpu(), 1e-9);
        assertEquals("2G", t.capAt(LocalDateTime.parse("2026-11-23T12:30")).memory().toString(),
                "what the later interval leaves unset comes from the earlier");
        assertEquals(0.0, OFFICE.closedOutsideIntervals().capAt(LocalDateTime.parse("2026-11-28T12:00")).cpu());
    }

    @Test
    void anIntervalOfTheSameDaysAndTimesIsReplacedAndCanBeRemoved() {
        Interval day = OFFICE.intervals().get(0);
        Thermostat t = OFFICE.with(new Interval(day.days(), day.from(), day.to(), 0.1, null));
        assertEquals(2, t.intervals().size());
        assertEquals(0.1, t.capAt(LocalDateTime.parse("2026-11-23T10:00")).cpu(), 1e-9);
        assertEquals(1, t.without(day.days(), day.from(), day.to()).intervals().size());
    }

    @Test
    void textFormsAreReadAndBadOnesRefusedSayingWhatToGive() {
        assertEquals(EnumSet.of(DayOfWeek.FRIDAY, DayOfWeek.SATURDAY, DayOfWeek.SUNDAY, DayOfWeek.MONDAY),
                Thermostat.parseDays("fri-mon"));
        assertEquals(EnumSet.of(DayOfWeek.MONDAY, DayOfWeek.WEDNESDAY, DayOfWeek.THURSDAY),
                Thermostat.parseDays("Monday,wed-thu"));
        assertEquals("mon,wed-thu", Thermostat.formatDays(Thermostat.parseDays("Monday,wed-thu")));
        assertEquals(2L << 30, Memory.parse("2G").bytesOf(0));
        assertEquals(512L << 20, Memory.parse("512MiB").bytesOf(0));
        assertEquals(1L << 29, Memory.parse("25%").bytesOf(2L << 30));
        assertEquals(Long.MAX_VALUE, Memory.parse("unlimited").bytesOf(1L << 30));
        assertEquals(0.5, Thermostat.parseCpu("50%"));
        assertEquals(LocalTime.of(9, 30), Thermostat.parseTime("9:30"));
        for (Runnable bad : List.<Runnable>of(() -> Thermostat.parseCpu("150%"), () -> Thermostat.parseCpu("half"),
                () -> Memory.parse("2X"), () -> Memory.parse("0"), () -> Thermostat.parseDays("mon-funday"),
                () -> Thermostat.parseTime("25:00"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad::run);
            assertTrue(e.getMessage().contains("give"), e.getMessage());
        }
    }

    @Test
    void theFileKeepsWhatWasWrittenAndAMissingOneCapsNothing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("thermostat.json");
        assertEquals(Thermostat.OPEN, Thermostat.read(file));
        OFFICE.write(file);
        assertEquals(OFFICE, Thermostat.read(file));
        Files.writeString(file, "{\"cpu\": \"50%\", \"intervals\": [{\"days\": \"mon\", \"from\": \"09:00\"}]}");
        IOException e = assertThrows(IOException.class, () -> Thermostat.read(file));
        assertTrue(e.getMessage().contains("interval 1 has no 'to'"), e.getMessage());
        Files.writeString(file, "{\"cpu\": ");
        assertTrue(assertThrows(IOException.class, () -> Thermostat.read(file)).getMessage()
                .contains("is not a thermostat file"));
    }
}
