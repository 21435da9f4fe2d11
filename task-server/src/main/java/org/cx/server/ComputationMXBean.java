package org.cx.server;

/**
 * A computation's part on one server: {@code org.cx:type=Computation,server=…,id=…}. A computation spread over a
 * network has one on every server holding some of it; the console adds them up.
 */
public interface ComputationMXBean {
    /** The computation id, in hex as consumers print it. */
    String getId();

    /** Whether it was submitted here (this server delivers its result). */
    boolean isOrigin();

    /** Tasks completed here. */
    long getTasksDone();

    /** Tasks completed here plus tasks stored here now. */
    long getTasksKnown();

    /** Seconds since it was submitted (at the origin) or first seen here. */
    double getElapsedSeconds();

    /** RUNNING, DONE or FAILED. */
    String getPhase();

    /** Its tasks here that are ready, running and waiting, and which inputs the waiting ones lack. */
    String getDiagnosis();

    /** Whether it has tasks here waiting for inputs and none ready or running. */
    boolean isStalled();

    /**
     * Cancels the computation on every server and producer, whoever owns it; its consumer is told it was cancelled
     * by an administrator. Only an admin login may invoke operations. Says what happened.
     */
    String cancel();
}
