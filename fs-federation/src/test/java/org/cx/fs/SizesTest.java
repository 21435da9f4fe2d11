package org.cx.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void amountsParseWithAndWithoutUnits() {
        assertEquals(8388608, Sizes.parse("8388608"));
        assertEquals(512, Sizes.parse("512B"));
        assertEquals(64 << 10, Sizes.parse("64K"));
        assertEquals(50L << 20, Sizes.parse("50MiB"));
        assertEquals(3L << 29, Sizes.parse("1.5G"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("lots"));
        assertEquals("1.5 GiB", Sizes.human(3L << 29));
        assertEquals("512 B", Sizes.human(512));
    }
}
