package org.cx.wire;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registers CX's MBeans in the platform MBean server (what jconsole and {@code cx status} read). */
public final class Jmx {
    private static final Logger LOG = LoggerFactory.getLogger(Jmx.class);

    private Jmx() {
    }

    /** Registers {@code mbean} (an MXBean implementation) as {@code name}; returns the name, or null on failure. */
    public static ObjectName register(String name, Object mbean) {
        try {
            ObjectName objectName = new ObjectName(name);
            ManagementFactory.getPlatformMBeanServer().registerMBean(mbean, objectName);
            return objectName;
        } catch (JMException e) {
            LOG.warn("cannot register MBean {}: {}", name, e.toString());
            return null;
        }
    }

    /** Unregisters {@code name} if registered; null is ignored. */
    public static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            // already gone
        }
    }
}
