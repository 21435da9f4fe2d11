package org.cx.discovery;

/**
 * A registered service as clients see it: its kind ({@link Discovery#TASK_SERVER}, {@link Discovery#NETWORK}), name,
 * {@code host:port}, and for task servers the tree position, tasks held and producers attached (-1 unknown).
 */
public record ServiceRecord(String kind, String name, String address, int position, int tasks, int producers) {

    public static ServiceRecord of(String kind, String name, String address) {
        return new ServiceRecord(kind, name, address, -1, -1, -1);
    }
}
