package org.cx.discovery;

import java.io.IOException;
import java.util.List;

/**
 * How CX parts find each other: services register themselves with attributes and keep their registration alive
 * with a lease; clients look them up by kind. A registration whose process dies leaves within its lease time.
 * Implemented with an Apache River lookup service ({@link RiverDiscovery}); nothing else in CX sees River.
 */
public interface Discovery extends AutoCloseable {

    /**
     * Kinds of service: task servers, the production network (registered by its primary root), and the federated
     * file service's name service.
     */
    String TASK_SERVER = "task-server";
    String NETWORK = "network";
    String FS_NAMES = "fs-names";
    /** The accounting service. */
    String ACCOUNTING = "accounting";

    /** Registers {@code service}; the registration is renewed until cancelled or this discovery is closed. */
    Registration register(ServiceRecord service) throws IOException;

    /** Every live registration of {@code kind}. */
    List<ServiceRecord> lookup(String kind) throws IOException;

    @Override
    void close();

    /** A live registration. */
    interface Registration extends AutoCloseable {
        /** Replaces the attributes (same kind and address). */
        void update(ServiceRecord service) throws IOException;

        /** Cancels the lease: the service leaves the lookup service now. */
        @Override
        void close();
    }
}
