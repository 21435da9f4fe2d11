package org.cx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class DurationConverterTest {

    @ParameterizedTest
    @CsvSource({
        "500ms, PT0.5S",
        "1s, PT1S",
        "1.5s, PT1.5S",
        "10m, PT10M",
        "1h, PT1H",
        "2d, PT48H",
        "1m30s, PT1M30S",
        "250us, PT0.00025S",
        "7ns, PT0.000000007S",
        "0s, PT0S",
        "PT10M, PT10M",
        "pt2s, PT2S",
        "' 3S ', PT3S",
    })
    void readsUnitsSumsAndIso(String text, String expected) {
        assertEquals(Duration.parse(expected), DurationConverter.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "s", "10", "1 s", "1x", "1s2", "-1s", "ms1", "1.s", "P", "-PT1S", "PTxS"})
    void refusesWhatIsNotADuration(String text) {
        CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                () -> DurationConverter.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }
}
