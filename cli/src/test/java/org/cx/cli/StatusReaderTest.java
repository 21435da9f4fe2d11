package org.cx.cli;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertNull;

/** What {@code cx status} does when the network changes while it reads it. */
class StatusReaderTest {
    @Test
    void aComputationThatLeavesBetweenBeingListedAndBeingReadIsLeftOutOfTheView() throws Exception {
        ObjectName gone = new ObjectName("org.cx:type=Computation,server=\"s0@1\",id=00000000000000ff");
        assertNull(StatusReader.computation(ManagementFactory.getPlatformMBeanServer(), gone, "s0"));
    }
}
