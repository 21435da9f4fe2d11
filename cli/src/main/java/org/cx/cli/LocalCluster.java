package org.cx.cli;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.EventLoops;

/**
 * A task server and P producers in one process, talking over loopback TCP: every producer has its own connection.
 * Used by {@code cx demo}, {@code cx bench} and the system tests.
 */
public final class LocalCluster implements AutoCloseable {
    private final TaskServerNode server;
    private final EventLoopGroup producerLoops;
    private final List<Producer> producers = new ArrayList<>();

    private LocalCluster(TaskServerNode server, EventLoopGroup producerLoops) {
        this.server = server;
        this.producerLoops = producerLoops;
    }

    /**
     * Starts a server with {@code config} and {@code producers} producers of {@code workers} workers each.
     * Producers share two I/O threads; each still has its own socket.
     */
    public static LocalCluster start(ServerConfig config, int producers, int workers, boolean prefetch)
            throws IOException, InterruptedException {
        TaskServerNode server = TaskServerNode.start(config);
        LocalCluster cluster = new LocalCluster(server, EventLoops.create("cx-producers-io", 2));
        try {
            for (int i = 0; i < producers; i++) {
                cluster.addProducer(workers, prefetch);
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Attaches one more producer. */
    public Producer addProducer(int workers, boolean prefetch) throws IOException {
        ProducerConfig pc = ProducerConfig.of(server.address(), workers)
                .withName("producer-" + producers.size())
                .withPrefetch(prefetch);
        Producer p = Producer.start(pc, producerLoops);
        producers.add(p);
        return p;
    }

    public TaskServerNode server() {
        return server;
    }

    public List<Producer> producers() {
        return producers;
    }

    /** A new consumer connection to the server. */
    public Consumer consumer() throws IOException {
        return Consumer.connect(server.address());
    }

    @Override
    public void close() {
        for (Producer p : producers) {
            p.close();
        }
        producerLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        server.close();
    }
}
