package org.cx.server;

import java.util.List;

/** A task server as the JMX console sees it: {@code org.cx:type=TaskServer,name=…,port=…}. */
public interface TaskServerMXBean {

    /** One attached producer, as this server knows it. */
    record ProducerRow(String name, int workers, int tasksHeld, long tasksCompleted, String jmx) {
    }

    String getName();

    /** {@code host:port} clients use. */
    String getAddress();

    /** Id in the production network (0 until joined). */
    int getServerId();

    /** Tree position: 0 primary root, 1 secondary root; -1 until joined. */
    int getPosition();

    List<Integer> getNeighbours();

    List<Integer> getMirrorGroup();

    /** Ready tasks (including those handed out and still running). */
    int getReadyTasks();

    /** Tasks waiting for inputs. */
    int getUnreadyTasks();

    /** Ready tasks some producer is running. */
    int getRunningTasks();

    long getTasksCompleted();

    /** Completions applied here per second, over the last second. */
    double getTasksCompletedPerSecond();

    int getProducers();

    List<ProducerRow> getProducerDetails();

    int getComputations();

    int getBundlesHeld();

    /**
     * The last membership changes this server decided or made (joins, failures and who took over, a new primary
     * root), oldest first, each as {@code TIME TEXT} with an ISO-8601 UTC time.
     */
    String[] getRecentEvents();
}
