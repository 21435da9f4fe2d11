package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class ConnectionLimitsTest {
    private static InetAddress address(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    }

    @Test
    void oneAddressGetsItsShareAndOthersStillGetIn() throws Exception {
        ConnectionLimits limits = new ConnectionLimits(5, 2);
        assertNull(limits.admit(address(1)));
        assertNull(limits.admit(address(1)));
        String refused = limits.admit(address(1));
        assertNotNull(refused);
        assertTrue(refused.contains("from 10.0.0.1"), refused);
        assertNull(limits.admit(address(2)), "another address is not held back");
        limits.release(address(1));
        assertNull(limits.admit(address(1)), "a closed connection frees its place");
        assertEquals(3, limits.open());
    }

    @Test
    void theTotalCapHoldsAcrossAddresses() throws Exception {
        ConnectionLimits limits = new ConnectionLimits(3, 3);
        for (int i = 1; i <= 3; i++) {
            assertNull(limits.admit(address(i)));
        }
        String refused = limits.admit(address(4));
        assertNotNull(refused);
        assertTrue(refused.contains("--max-connections"), refused);
        limits.release(address(2));
        assertNull(limits.admit(address(4)));
    }
}
