package org.cx.harness;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cx.consumer.Consumer;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.Tls;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.wire.EventLoops;

/**
 * S task servers forming one production network, and P producers spread evenly over them, in one process and
 * talking over loopback TCP: every server has its own socket and event loop thread, every producer its own
 * connection. Used by {@code cx demo}, {@code cx bench} and the system tests.
 */
public final class LocalCluster implements AutoCloseable {
    private static final String PRODUCER_IO_THREADS = "cx-producers-io";
    private final List<TaskServerNode> servers = new ArrayList<>();
    private final EventLoopGroup producerLoops;
    private final List<Producer> producers = new ArrayList<>();
    /** Per producer, in start order: the index of the server it attached to. */
    private final List<Integer> producerServers = new ArrayList<>();
    private final boolean timelines;
    /** Where the producers {@link #start} attaches run task code. */
    private final TaskBox box;
    /** Each producer has a credential of its own (a distinct owner, as validated computations need). */
    private final boolean ownCredentials;

    private LocalCluster(EventLoopGroup producerLoops, boolean timelines, TaskBox box, boolean ownCredentials) {
        this.producerLoops = producerLoops;
        this.timelines = timelines;
        this.box = box;
        this.ownCredentials = ownCredentials;
    }

    /** One server with {@code config} and {@code producers} producers of {@code workers} workers each. */
    public static LocalCluster start(ServerConfig config, int producers, int workers, boolean prefetch)
            throws IOException, InterruptedException {
        return start(config, 1, producers, workers, prefetch);
    }

    /**
     * Starts {@code servers} servers (the first founds the network, the others join it, named after
     * {@code config.name()}) and waits until every one has its place in the tree; then attaches the producers,
     * producer i to server i mod S. Producers share two I/O threads; each still has its own socket.
     */
    public static LocalCluster start(ServerConfig config, int servers, int producers, int workers, boolean prefetch)
            throws IOException, InterruptedException {
        return start(config, servers, producers, workers, prefetch, false);
    }

    /**
     * As above; with {@code timelines}, every producer records the tasks it runs ({@link Producer#timeline()}) and
     * every server its scheduler's decisions ({@link TaskServerNode#timeline()}).
     */
    public static LocalCluster start(ServerConfig serverConfig, int servers, int producers, int workers,
                                     boolean prefetch, boolean timelines) throws IOException, InterruptedException {
        return start(serverConfig, servers, producers, workers, prefetch, timelines, TaskBox.inProcess());
    }

    /** As above, with producers that run task code as {@code box} says (in their own JVM in the other forms). */
    public static LocalCluster start(ServerConfig serverConfig, int servers, int producers, int workers,
                                     boolean prefetch, boolean timelines, TaskBox box)
            throws IOException, InterruptedException {
        return start(serverConfig, servers, producers, workers, prefetch, timelines, box, false);
    }

    /**
     * As above; with {@code ownCredentials}, producer i holds a local credential of its own, {@code producer-i}
     * (issued once, kept in the user's CX directory), so that the producers count as different owners, as the
     * volunteers who validate each other's results do. On plain connections their names tell them apart anyway.
     */
    public static LocalCluster start(ServerConfig serverConfig, int servers, int producers, int workers,
                                     boolean prefetch, boolean timelines, TaskBox box, boolean ownCredentials)
            throws IOException, InterruptedException {
        LocalCluster cluster = new LocalCluster(EventLoops.create(PRODUCER_IO_THREADS, 2), timelines, box,
                ownCredentials);
        ServerConfig config = serverConfig.withTimeline(timelines);
        try {
            TaskServerNode root = TaskServerNode.start(config);
            cluster.servers.add(root);
            String rootAddress = root.config().host() + ":" + root.port();
            for (int i = 1; i < servers; i++) {
                cluster.servers.add(TaskServerNode.start(config.withPort(0).withName(config.name() + "-" + i)
                        .withNetwork(config.network().withJoin(rootAddress))));
                cluster.awaitJoined(i + 1);
            }
            for (int i = 0; i < producers; i++) {
                cluster.addProducer(workers, prefetch);
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void awaitJoined(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!servers.stream().allMatch(s -> s.network().servers() == count && s.network().id() != 0)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the servers did not form a network of " + count + " within 30 s: "
                        + servers.stream().map(TaskServerNode::network).toList());
            }
            Thread.sleep(5);
        }
    }

    /** Attaches one more producer, to the next server in turn. */
    public Producer addProducer(int workers, boolean prefetch) throws IOException {
        return addProducer(producers.size() % servers.size(), workers, prefetch);
    }

    /** Attaches one more producer to server {@code server} (in start order). */
    public Producer addProducer(int server, int workers, boolean prefetch) throws IOException {
        return addProducer(server, workers, prefetch, 1.0);
    }

    /**
     * Attaches one more producer of the given host speed to server {@code server} (in start order). It runs task
     * code as the cluster was started to (by default in its own JVM: the cluster runs one user's code on one
     * machine).
     */
    public Producer addProducer(int server, int workers, boolean prefetch, double speed) throws IOException {
        return addProducer(server, workers, prefetch, speed, box);
    }

    /** Attaches one more producer that runs task code as {@code box} says. */
    public Producer addProducer(int server, int workers, boolean prefetch, double speed, TaskBox box)
            throws IOException {
        return addProducer(server, workers, c -> c.withPrefetch(prefetch).withSpeed(speed).withBox(box));
    }

    /** Attaches one more producer to server {@code server}, its settings as {@code adjust} makes them. */
    public Producer addProducer(int server, int workers, java.util.function.UnaryOperator<ProducerConfig> adjust)
            throws IOException {
        TaskServerNode to = servers.get(server);
        String name = "producer-" + producers.size();
        ProducerConfig pc = (to.config().insecure() ? ProducerConfig.of(to.address(), workers, null)
                : ownCredentials ? ProducerConfig.of(to.address(), workers, CxHome.local(CredentialRole.PRODUCER, name,
                false)) : ProducerConfig.of(to.address(), workers))
                .withName(name)
                .withTimeline(timelines)
                .withBox(box);
        Producer p = Producer.start(adjust.apply(pc), producerLoops);
        producers.add(p);
        producerServers.add(server);
        return p;
    }

    /** The server the network was founded on: the primary root, where consumers submit. */
    public TaskServerNode server() {
        return servers.get(0);
    }

    public List<TaskServerNode> servers() {
        return servers;
    }

    public List<Producer> producers() {
        return producers;
    }

    /** The index (in {@link #servers()}) of the server producer {@code index} (in {@link #producers()}) attached to. */
    public int serverOf(int index) {
        return producerServers.get(index);
    }

    /** A new consumer connection to the primary root. */
    public Consumer consumer() throws IOException {
        return server().config().insecure() ? Consumer.connect(server().address(), (Tls) null)
                : Consumer.connect(server().address());
    }

    /**
     * CPU time so far, in nanoseconds, of the event loop threads of this process's task servers and of the producers'
     * I/O threads, in that order: the difference over a run is what the network cost beside the tasks. Zeros where
     * the JVM does not measure thread CPU time.
     */
    public long[] ioCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] cpu = new long[2];
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
            return cpu;
        }
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
            if (info == null) {
                continue; // ended meanwhile
            }
            String name = info.getThreadName();
            int kind = TaskServerNode.isEventLoopThread(name) ? 0 : name.startsWith(PRODUCER_IO_THREADS) ? 1 : -1;
            long nanos = kind < 0 ? -1 : threads.getThreadCpuTime(info.getThreadId());
            if (nanos > 0) {
                cpu[kind] += nanos;
            }
        }
        return cpu;
    }

    /** Tasks completed, completions received and execution time applied, summed over the servers. */
    public long[] totals() {
        long[] t = new long[3];
        for (TaskServerNode s : servers) {
            TaskServerNode.Status st = s.status();
            t[0] += st.tasksCompleted();
            t[1] += st.completionsReceived();
            t[2] += st.execNanosApplied();
        }
        return t;
    }

    @Override
    public void close() {
        for (Producer p : producers) {
            p.close();
        }
        producerLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        for (TaskServerNode s : servers) {
            s.shutDownNetwork(); // all of them go: none is a failure the others should repair
        }
        for (TaskServerNode s : servers) {
            s.close();
        }
    }
}
