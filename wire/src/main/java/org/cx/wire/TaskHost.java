package org.cx.wire;

import java.nio.file.FileSystem;
import java.util.function.LongFunction;

/**
 * What the host running a task offers it beyond the exchange.
 *
 * @param speed the host's {@link org.cx.api.TaskContext#hostSpeed() speed}
 * @param files the federated file service for a task of the given computation, as its owner sees it; null where the
 *              host reaches none. It may throw {@link java.io.UncheckedIOException} when the service cannot be reached.
 */
public record TaskHost(double speed, LongFunction<FileSystem> files) {

    /** A host of the given speed that reaches no file service. */
    public static TaskHost of(double speed) {
        return new TaskHost(speed, computation -> null);
    }
}
