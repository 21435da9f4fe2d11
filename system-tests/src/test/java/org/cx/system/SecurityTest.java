package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.api.Task;
import org.cx.harness.AppJars;
import org.cx.harness.LocalCluster;
import org.cx.wire.BundleClassLoader;
import org.cx.wire.CodeBundle;
import org.cx.security.Authority;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.RevocationList;
import org.cx.security.Tls;
import org.cx.server.ServerConfig;
import org.cx.wire.Completion;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probes an attacker tried against a network with default options, each against a real server over TLS on
 * loopback, beside an honest computation that must stay right. The cluster uses the tests' local authority; the
 * probes hold credentials of the wrong role, of another user, of another authority, or none.
 */
class SecurityTest {
    private static EventLoopGroup group;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        group = EventLoops.create("probe", 1);
    }

    @AfterAll
    static void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void aProducerCredentialCannotJoinAsAServerNorAUserOneAsAProducer() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("roles"), 1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            IOException asServer = assertThrows(IOException.class, () -> raw(cluster, CxHome.local(
                    CredentialRole.PRODUCER, false), new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.SERVER,
                    "rogue", 9), new LinkedBlockingQueue<>()));
            assertTrue(asServer.getMessage().contains("may not connect as a server"), asServer.getMessage());
            IOException asProducer = assertThrows(IOException.class, () -> raw(cluster, CxHome.local(
                    CredentialRole.USER, false), new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER,
                    "hoarder", 64), new LinkedBlockingQueue<>()));
            assertTrue(asProducer.getMessage().contains("may not connect as a producer"), asProducer.getMessage());
            assertEquals(Fib.value(12), consumer.submit(new Fib(12)).result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aStrangerOrAPlainConnectionGetsNoFurtherThanTheHandshake() throws Exception {
        Authority other = Authority.create(dir.resolve("other"), "other");
        Tls stranger = Tls.of(other.issue(CredentialRole.SERVER, "s9", Duration.ofDays(1)), RevocationList.none());
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("strangers"), 1, 2, 1, true);
             Consumer consumer = cluster.consumer()) {
            Message.Hello hello = new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.SERVER, "s9", 9);
            IOException foreign = assertThrows(IOException.class,
                    () -> raw(cluster, stranger, hello, new LinkedBlockingQueue<>()));
            assertTrue(foreign.getMessage().contains("TLS handshake failed"), foreign.getMessage());
            assertThrows(IOException.class, () -> raw(cluster, null, hello, new LinkedBlockingQueue<>()));
            assertEquals(Fib.value(12), consumer.submit(new Fib(12)).result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aProducerCannotCompleteATaskItWasNotGiven() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("forger"), 1, 0, 1, true);
             Consumer consumer = cluster.consumer()) {
            Consumer.Pending<Long> honest = consumer.submit(new Fib(10));
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            Channel rogue = raw(cluster, CxHome.local(CredentialRole.PRODUCER, false),
                    new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "rogue", 1), received);
            byte[] forged = new org.cx.wire.BodyCodecs(SecurityTest.class.getClassLoader()).forComputation(honest.id())
                    .encode(31337L);
            rogue.writeAndFlush(new Message.Completed(new Completion[] {new Completion(TaskId.root(honest.id()),
                    new TaskEnvelope[0], new ValueEnvelope[] {new ValueEnvelope(Continuation.CONSUMER, forged)}, 1)}));
            rogue.close().sync();
            cluster.addProducer(1, true);
            assertEquals(Fib.value(10), honest.result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aUserCannotCollectAnotherUsersComputation() throws Exception {
        Authority local = Authority.open(CxHome.authorityDir());
        Tls mallory = Tls.of(local.issue(CredentialRole.USER, "mallory", Duration.ofDays(1)), RevocationList.none());
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("owners"), 1, 0, 1, true);
             Consumer alice = cluster.consumer()) {
            Consumer.Pending<Long> hers = alice.submit(new Fib(10));
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            Channel probe = raw(cluster, mallory, new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.CONSUMER,
                    "mallory", 0), received);
            probe.writeAndFlush(new Message.Collect(hers.id()));
            Message answer = received.poll(30, TimeUnit.SECONDS);
            assertTrue(answer instanceof Message.Failed f && f.reason().startsWith("no computation"),
                    String.valueOf(answer));
            probe.writeAndFlush(new Message.Collected(hers.id()));
            probe.close().sync();
            try (Consumer other = Consumer.connect(cluster.server().address(), mallory)) {
                long id = hers.id();
                for (var attempt : List.<java.util.concurrent.Callable<?>>of(
                        () -> other.cancel(id).get(30, TimeUnit.SECONDS),
                        () -> other.changePriority(id, 9).get(30, TimeUnit.SECONDS),
                        () -> other.diagnose(id).get(30, TimeUnit.SECONDS),
                        () -> other.watch(id).result().get(30, TimeUnit.SECONDS))) {
                    String why = assertThrows(ExecutionException.class, attempt::call).getCause().getMessage();
                    assertTrue(why.startsWith("no computation"), why);
                }
                assertTrue(other.computations().get(30, TimeUnit.SECONDS).isEmpty(), "mallory lists none of hers");
                assertEquals(1, alice.computations().get(30, TimeUnit.SECONDS).size(), "alice lists hers");
            }
            cluster.addProducer(1, true);
            assertEquals(Fib.value(10), hers.result().get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aProducerCannotFetchTheCodeOfAComputationItHasNoTaskOf() throws Exception {
        byte[] jar = AppJars.jar(AppJars.packageOf(Fib.class));
        String hash = CodeBundle.hashOf(jar);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("code-thief"), 1, 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            Task fib = fibFrom(jar, 12);
            assertEquals(Fib.value(12), consumer.submit(fib).result().get(60, TimeUnit.SECONDS));
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            Channel thief = raw(cluster, CxHome.local(CredentialRole.PRODUCER, false),
                    new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "thief", 1), received);
            thief.writeAndFlush(new Message.FetchBundle(hash));
            Message answer = received.poll(30, TimeUnit.SECONDS);
            assertTrue(answer instanceof Message.NoBundle no && no.reason().contains("no task that runs from"),
                    String.valueOf(answer));
            thief.close().sync();
        }
    }

    @Test
    void codeNoUserSignedIsRefusedOnUpload() throws Exception {
        byte[] jar = AppJars.jar(AppJars.packageOf(Fib.class));
        String hash = CodeBundle.hashOf(jar);
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("unsigned"), 1, 1, 1, true);
             Consumer consumer = cluster.consumer()) {
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            Channel raw = raw(cluster, CxHome.local(CredentialRole.USER, false),
                    new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.CONSUMER, "unsigned", 0), received);
            Message.Submit submit = new Message.Submit(1, new TaskEnvelope(TaskId.root(0), Continuation.CONSUMER, 0,
                    0, false, new byte[] {1}), hash);
            raw.write(new Message.BundleChunk(hash, 0, jar.length, jar)); // no signature
            raw.writeAndFlush(submit);
            Message answer = received.poll(30, TimeUnit.SECONDS);
            assertTrue(answer instanceof Message.SubmitRefused r && r.reason().contains("is not signed"),
                    String.valueOf(answer));
            raw.close().sync();
            Task fib = fibFrom(jar, 11);
            assertEquals(Fib.value(11), consumer.submit(fib).result().get(60, TimeUnit.SECONDS),
                    "the same code, signed by its user, runs");
        }
    }

    /** F(n) whose classes come from code bundle {@code jar}, so that the consumer uploads it. */
    private static Task fibFrom(byte[] jar, int n) throws ReflectiveOperationException {
        return (Task) new BundleClassLoader(CodeBundle.of(jar)).loadClass(Fib.class.getName())
                .getConstructor(int.class).newInstance(n);
    }

    /** A hand-made connection that sends {@code hello} with {@code tls} and collects what comes back. */
    private static Channel raw(LocalCluster cluster, Tls tls, Message.Hello hello, BlockingQueue<Message> received)
            throws IOException {
        return WireClient.connect(group, cluster.server().address(), tls, hello,
                welcome -> new SimpleChannelInboundHandler<Message>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                        received.add(msg);
                    }
                }, 10_000);
    }
}
