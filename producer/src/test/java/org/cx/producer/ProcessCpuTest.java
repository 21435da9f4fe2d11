package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    @Test
    void readsThisProcesssCpuTimeAsTheJvmCountsIt() {
        long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        long read = ProcessCpu.nanos(ProcessHandle.current().pid());
        assertTrue(read > 0, "read " + read);
        // Both count the same ticks; the read comes later, and /proc has 10 ms resolution.
        assertTrue(read >= jvm - 20_000_000L, "read " + read + " ns, the JVM says " + jvm + " ns");
    }

    @Test
    void aProcessThatIsGoneHasNone() {
        assertEquals(-1, ProcessCpu.nanos(Long.MAX_VALUE));
    }
}
