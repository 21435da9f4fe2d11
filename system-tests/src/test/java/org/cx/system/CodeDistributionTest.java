package org.cx.system;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.Task;
import org.cx.api.TaskId;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.AppJars;
import org.cx.harness.LocalCluster;
import org.cx.producer.Producer;
import org.cx.server.ServerConfig;
import org.cx.server.TaskServerNode;
import org.cx.testing.Await;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Paper §4.3: a computation's classes travel as a content-addressed bundle, uploaded once by the consumer and
 * fetched down the server tree; producers load them in a class loader of the computation's own.
 */
class CodeDistributionTest {
    @TempDir
    Path dir;

    /** Where the two versions meet (a JDK object both bundle loaders can see): the producers run in this JVM. */
    private static final String MEETING = "cx.test.versions";

    /**
     * {@code app.Version}: answers {@code version}, its loader's name, and whether the other version was running at
     * the same time (each waits, up to 30 s, until both have started).
     */
    private static String versionSource(String version) {
        return """
                package app;
                import java.util.concurrent.CountDownLatch;
                import java.util.concurrent.TimeUnit;
                public class Version extends org.cx.api.Task {
                    @Override
                    public void execute(org.cx.api.TaskContext context) {
                        CountDownLatch both = (CountDownLatch) System.getProperties()
                                .computeIfAbsent("%s", k -> new CountDownLatch(2));
                        both.countDown();
                        boolean together;
                        try {
                            together = both.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            together = false;
                        }
                        context.sendResult("%s from " + getClass().getClassLoader().getName()
                                + (together ? " (together)" : " (alone)"));
                    }
                }
                """.formatted(MEETING, version);
    }

    /** Stores an {@code app.Leaf}, loading it only when it runs (so the consumer can create a Spawner). */
    private static final String SPAWNER = """
            package app;
            public class Spawner extends org.cx.api.Task {
                @Override
                public void execute(org.cx.api.TaskContext context) {
                    try {
                        Class<?> leaf = Class.forName("app.Leaf", true, getClass().getClassLoader());
                        context.storeTask((org.cx.api.Task) leaf.getConstructor().newInstance(),
                                context.continuation());
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            """;
    private static final String LEAF = """
            package app;
            public class Leaf extends org.cx.api.Task {
                @Override
                public void execute(org.cx.api.TaskContext context) {
                    context.sendResult(1L);
                }
            }
            """;

    private static Task load(byte[] jar, String className, Object... args) throws Exception {
        BundleClassLoader loader = new BundleClassLoader(CodeBundle.of(jar));
        Class<?> type = loader.loadClass(className);
        if (args.length == 0) {
            return (Task) type.getConstructor().newInstance();
        }
        return (Task) type.getConstructor(int.class).newInstance(args);
    }

    @Test
    void aBundleGoesToTheRootOnceAndDownTheTreeOncePerServer() throws Exception {
        byte[] jar = AppJars.jar(AppJars.packageOf(Fib.class));
        int n = 17;
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("code"), 7, 32, 1, true);
             Consumer consumer = cluster.consumer()) {
            // Two computations from the same bundle at once: still one upload.
            Consumer.Pending<Long> first = consumer.submit(load(jar, "org.cx.examples.fib.Fib", n));
            Consumer.Pending<Long> second = consumer.submit(load(jar, "org.cx.examples.fib.Fib", n - 1));
            assertEquals(Fib.value(n), first.result().get(120, TimeUnit.SECONDS));
            assertEquals(Fib.value(n - 1), second.result().get(120, TimeUnit.SECONDS));

            assertEquals(1, consumer.bundleUploads(), "the consumer uploads the bundle once");
            assertEquals(jar.length, consumer.bundleBytesSent(), "one copy of the bundle's bytes");
            TaskServerNode.Status root = cluster.server().status();
            assertEquals(1, root.bundleUploads());
            assertEquals(0, root.bundleFetches(), "the root has the bundle from the consumer");
            long fetchedByServers = 0;
            for (TaskServerNode server : cluster.servers()) {
                TaskServerNode.Status s = server.status();
                assertTrue(s.bundleFetches() <= 1, s.name() + " fetched the bundle " + s.bundleFetches() + " times");
                fetchedByServers += s.bundleFetches();
            }
            long fetchedByProducers = 0;
            for (Producer p : cluster.producers()) {
                assertTrue(p.bundlesFetched() <= 1, "a producer fetched the bundle " + p.bundlesFetched() + " times");
                fetchedByProducers += p.bundlesFetched();
            }
            System.out.printf("bundle of %d bytes: 1 upload; %d server fetches; %d producer fetches%n", jar.length,
                    fetchedByServers, fetchedByProducers);
            assertEquals(cluster.servers().size() - 1, fetchedByServers, "every other server fetched it once");
            assertTrue(fetchedByProducers >= 16, "most producers ran tasks from the bundle: " + fetchedByProducers);
            // Both computations are over: every server unloads the bundle, including those that held it only
            // because a server they mirror ran them.
            Await.until("every server unloaded the bundle", Duration.ofSeconds(30), () -> cluster.servers().stream()
                    .allMatch(server -> server.status().bundlesHeld() == 0));

            // Yet its bytes stay: a later computation from it is sent nowhere again.
            assertEquals(Fib.value(n - 2), consumer.submit(load(jar, "org.cx.examples.fib.Fib", n - 2)).result()
                    .get(120, TimeUnit.SECONDS));
            assertEquals(1, consumer.bundleUploads(), "a computation after the first ended uploads nothing");
            assertEquals(1, cluster.server().status().bundleUploads());
            assertEquals(fetchedByServers, cluster.servers().stream().mapToLong(s -> s.status().bundleFetches()).sum(),
                    "no server fetched it again");
            for (Producer p : cluster.producers()) {
                assertTrue(p.bundlesFetched() <= 1, "a producer fetched the bundle " + p.bundlesFetched() + " times");
            }
        }
    }

    /**
     * Servers without producers hold a bundle only for their mirror copy of the root; when the computation ends
     * they drop it like everyone else (and a fetch that arrives after the end is not kept either).
     */
    @Test
    void aConsumerAttachedToAServerBelowTheRootRunsFromItsBundleEverywhere() throws Exception {
        byte[] jar = AppJars.jar(AppJars.packageOf(Fib.class));
        int n = 17;
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("anywhere"), 7, 14, 1, true)) {
            TaskServerNode leaf = cluster.servers().getLast();
            try (Consumer consumer = Consumer.connect(leaf.address())) {
                assertEquals(Fib.value(n), consumer.submit(load(jar, "org.cx.examples.fib.Fib", n)).result()
                        .get(120, TimeUnit.SECONDS));
                assertEquals(1, consumer.bundleUploads(), "the consumer uploads the bundle once, to its server");
            }
            assertEquals(1, leaf.status().bundleUploads());
            long producersThatRan = cluster.producers().stream().filter(p -> p.tasksRun() > 0).count();
            assertTrue(producersThatRan > cluster.producers().size() / 2,
                    "producers all over the tree ran its tasks: " + producersThatRan);
            // the root has it (pushed up from below): a computation submitted there fetches nothing
            try (Consumer atRoot = cluster.consumer()) {
                assertEquals(Fib.value(12), atRoot.submit(load(jar, "org.cx.examples.fib.Fib", 12)).result()
                        .get(60, TimeUnit.SECONDS));
                assertEquals(0, atRoot.bundleUploads(), "the root had the bundle already");
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aDivideAndConquerTemplateFromAJarRunsFromItsBundle() throws Exception {
        Map<String, byte[]> classes = new HashMap<>(AppJars.packageOf(Fib.class));
        classes.putAll(AppJars.packageOf(org.cx.examples.dc.FibonacciDc.class));
        byte[] jar = AppJars.jar(classes);
        BundleClassLoader loader = new BundleClassLoader(CodeBundle.of(jar));
        Class<?> load = loader.loadClass("org.cx.examples.fib.Load");
        Object template = loader.loadClass("org.cx.examples.dc.FibonacciDc").getConstructor(load)
                .newInstance(load.getField("NONE").get(null));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("dc-jar"), 1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            Consumer.Pending<Long> run = consumer.submit(org.cx.api.DivideAndConquer.task(
                    (org.cx.api.DivideAndConquer<Integer, Long>) template, 14));
            assertEquals(Fib.value(14), run.result().get(60, TimeUnit.SECONDS));
            assertEquals(1, consumer.bundleUploads(), "the template's jar went with the computation");
        }
    }

    @Test
    void aBundleHeldOnlyForAMirrorCopyIsDroppedWhenItsComputationEnds() throws Exception {
        byte[] jar = AppJars.jar(AppJars.packageOf(Fib.class));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("held"), 3, 0, 1, true)) {
            for (int i = 0; i < 4; i++) {
                cluster.addProducer(0, 1, true); // all on the root: the others only mirror
            }
            try (Consumer consumer = cluster.consumer()) {
                for (int n = 10; n <= 14; n++) {
                    assertEquals(Fib.value(n), consumer.submit(load(jar, "org.cx.examples.fib.Fib", n)).result()
                            .get(60, TimeUnit.SECONDS));
                }
            }
            Await.until("some server fetched the bundle for its mirror copy", Duration.ofSeconds(30),
                    () -> cluster.servers().stream().skip(1).anyMatch(s -> s.status().bundleFetches() > 0));
            Await.until("every server dropped the bundle", Duration.ofSeconds(30), () -> cluster.servers().stream()
                    .allMatch(server -> server.status().bundlesHeld() == 0));
        }
    }

    @Test
    void twoVersionsOfAClassRunAtOnceEachInItsOwnLoader() throws Exception {
        System.getProperties().remove(MEETING);
        byte[] v1 = AppJars.jar(Jars.compile(Map.of("app.Version", versionSource("v1")), dir.resolve("v1")));
        byte[] v2 = AppJars.jar(Jars.compile(Map.of("app.Version", versionSource("v2")), dir.resolve("v2")));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("versions"), 3, 4, 1, true);
             Consumer consumer = cluster.consumer()) {
            Consumer.Pending<String> one = consumer.submit(load(v1, "app.Version"));
            Consumer.Pending<String> two = consumer.submit(load(v2, "app.Version"));
            String a = one.result().get(60, TimeUnit.SECONDS);
            String b = two.result().get(60, TimeUnit.SECONDS);
            assertTrue(a.startsWith("v1 from cx-code-bundle-" + CodeBundle.shortHash(CodeBundle.hashOf(v1))), a);
            assertTrue(b.startsWith("v2 from cx-code-bundle-" + CodeBundle.shortHash(CodeBundle.hashOf(v2))), b);
            assertTrue(a.endsWith("(together)") && b.endsWith("(together)"), a + " / " + b);
        }
    }

    @Test
    void aMissingOrCorruptClassFailsItsComputationWithAReasonAndOthersRun() throws Exception {
        Map<String, byte[]> classes = Jars.compile(Map.of("app.Spawner", SPAWNER, "app.Leaf", LEAF), dir);
        Map<String, byte[]> missing = new HashMap<>(classes);
        missing.remove("app/Leaf.class");
        Map<String, byte[]> corrupt = new HashMap<>(classes);
        corrupt.put("app/Leaf.class", "not a class file".getBytes(StandardCharsets.US_ASCII));
        byte[] good = AppJars.jar(AppJars.packageOf(Fib.class));
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("bad-code"), 3, 4, 1, true);
             Consumer consumer = cluster.consumer()) {
            Consumer.Pending<Long> fine = consumer.submit(load(good, "org.cx.examples.fib.Fib", 15));
            Consumer.Pending<Long> noLeaf = consumer.submit(load(AppJars.jar(missing), "app.Spawner"));
            Consumer.Pending<Long> badLeaf = consumer.submit(load(AppJars.jar(corrupt), "app.Spawner"));

            String why = assertThrows(ExecutionException.class, () -> noLeaf.result().get(60, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(why.contains("app.Leaf") || why.contains("app/Leaf"), why);
            why = assertThrows(ExecutionException.class, () -> badLeaf.result().get(60, TimeUnit.SECONDS))
                    .getCause().getMessage();
            assertTrue(why.contains("Leaf") && why.contains("corrupt"), why);
            assertEquals(Fib.value(15), fine.result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void anUploadWhoseHashDoesNotMatchIsRefusedAndTheConnectionCarriesOn() throws Exception {
        byte[] claimed = AppJars.jar(AppJars.packageOf(Fib.class));
        byte[] sent = AppJars.jar(Map.of("app/Other.class", new byte[] {1, 2, 3}));
        String hash = CodeBundle.hashOf(claimed);
        EventLoopGroup group = EventLoops.create("raw-consumer", 1);
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("hash"), 1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            Channel raw = WireClient.connect(group, new InetSocketAddress("127.0.0.1", cluster.server().port()),
                    org.cx.security.CxHome.local(org.cx.security.CredentialRole.USER, false),
                    new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.CONSUMER, "forger", 0),
                    welcome -> new SimpleChannelInboundHandler<Message>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                            received.add(msg);
                        }
                    }, 10_000);
            Message.Submit submit = new Message.Submit(1, new TaskEnvelope(TaskId.root(0), Continuation.CONSUMER, 0,
                    0, false, new byte[] {1}), hash);
            raw.writeAndFlush(submit);
            assertEquals(new Message.NeedBundle(1, hash), received.poll(30, TimeUnit.SECONDS));
            raw.write(new Message.BundleChunk(hash, 0, sent.length, sent));
            raw.writeAndFlush(submit);
            Message answer = received.poll(30, TimeUnit.SECONDS);
            assertTrue(answer instanceof Message.SubmitRefused r && r.requestId() == 1
                    && r.reason().contains("arrived with hash"), String.valueOf(answer));
            assertTrue(raw.isActive(), "the connection stays open");
            assertEquals(Fib.value(15), consumer.submit(new Fib(15)).result().get(60, TimeUnit.SECONDS));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
